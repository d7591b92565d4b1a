import { join } from 'node:path';
import { parseExport } from '@troupe/kernel/storage';
import type { SessionEvent } from '@troupe/kernel';
import { asIoError, atomicWriteFile } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { errorCode } from '../fs/storage-fs.js';
import { sweepDeadTemps } from '../fs/sweep-temps.js';
import { tempName } from '../fs/temp-names.js';
import { mkdirp } from '../tree/safe-paths.js';
import { eventLine, parseEventLine, sequenceOf, splitLines } from './event-lines.js';
import type { FsSessionLogOptions } from './fs-session-log.js';
import { INDEX_FILE, indexFileFor } from './index-file.js';
import type { LockedSessions } from './locked-sessions.js';
import { eventNotFound, IndexMismatch, sessionExists } from './session-errors.js';
import { EVENTS_FILE, META_FILE } from './session-paths.js';

// Whole-session copies: branching, export and import. They share one rule: a new session is
// built in a staging folder and renamed into place, so it is never seen half-created.

/** What `session.json` records for a branched or imported session. */
interface SessionMeta {
  nextSeq: number;
  parent?: { sessionId: string; atEventId: string };
}

/**
 * Copies events up to and including `atEventId` into a new session; the parent is only read.
 * @param sessions - the lock and index keeper
 * @param options - where sessions live and which fs layer to use
 * @param sessionId - the parent (already validated)
 * @param atEventId - the last event copied
 * @param newSessionId - the new session (already validated; must not exist)
 * @throws {KernelStorageError} SESSION_EXISTS, SESSION_EVENT_NOT_FOUND, STORAGE_IO
 */
export async function branchSession(sessions: LockedSessions, options: FsSessionLogOptions, sessionId: string, atEventId: string, newSessionId: string): Promise<void> {
  if (await sessions.exists(newSessionId)) throw sessionExists(newSessionId);
  const copied = await sessions.lockedIfExists(sessionId, async (index, paths) => {
    const position = index.positionOf(atEventId);
    const span = position === undefined ? undefined : index.spans[position];
    if (!span) return undefined;
    // Read-only on the parent: its bytes are never rewritten.
    const lines = splitLines(await readFileBytes(options.fs, paths.events, 0, span.end));
    const events = lines.map((line, at) => ({ ...parseEventLine(line, `${paths.events} line ${at + 1}`), sessionId: newSessionId }));
    if (events.length !== (position ?? 0) + 1 || events.at(-1)?.id !== atEventId) throw new IndexMismatch();
    return { events, nextSeq: index.nextSeq(), parent: { sessionId, atEventId } };
  });
  if (!copied) throw eventNotFound(sessionId, atEventId);
  await createSessionFrom(sessions, options, newSessionId, copied.events, { nextSeq: copied.nextSeq, parent: copied.parent });
}

/**
 * The session's complete lines, byte for byte as stored.
 * @param sessions - the lock and index keeper
 * @param options - which fs layer to use
 * @param sessionId - the session (already validated)
 * @returns JSON Lines ('' for an unknown session)
 * @throws {KernelStorageError} STORAGE_IO
 */
export async function exportSession(sessions: LockedSessions, options: FsSessionLogOptions, sessionId: string): Promise<string> {
  const text = await sessions.lockedIfExists(sessionId, async (index, paths) =>
    (await readFileBytes(options.fs, paths.events, 0, index.size)).toString('utf8'),
  );
  return text ?? '';
}

/**
 * Creates a session from an export (validated with the kernel's `parseExport`).
 * @param sessions - the lock and index keeper
 * @param options - where sessions live and which fs layer to use
 * @param sessionId - the new session (already validated; must not exist)
 * @param jsonl - an export
 * @throws {KernelStorageError} SESSION_EXISTS, SESSION_INVALID_EVENT, STORAGE_IO
 */
export async function importSession(sessions: LockedSessions, options: FsSessionLogOptions, sessionId: string, jsonl: string): Promise<void> {
  const events = parseExport(jsonl).map((event) => ({ ...event, sessionId }));
  if (await sessions.exists(sessionId)) throw sessionExists(sessionId);
  // Ids keep counting after the highest imported one, so new events never reuse an id.
  const nextSeq = Math.max(1, ...events.map((event) => sequenceOf(event.id) + 1));
  await createSessionFrom(sessions, options, sessionId, events, { nextSeq });
}

/** Builds a session in a temp folder, then renames it into place (never half-created). */
async function createSessionFrom(sessions: LockedSessions, options: FsSessionLogOptions, sessionId: string, events: readonly SessionEvent[], meta: SessionMeta): Promise<void> {
  const fs = options.fs;
  const paths = sessions.paths(sessionId);
  await sessions.exclusive(sessionId, async () => {
    try {
      await mkdirp(fs, options.dir);
      await sweepDeadTemps(fs, options.dir);
      if (await sessions.exists(sessionId)) throw sessionExists(sessionId);
      const staging = join(options.dir, tempName());
      await fs.mkdir(staging);
      try {
        const lines = events.map((event) => eventLine(event));
        await atomicWriteFile(fs, staging, EVENTS_FILE, Buffer.from(lines.join(''), 'utf8'));
        // The new session's index, so its first reader does not scan it.
        await atomicWriteFile(fs, staging, INDEX_FILE, indexFileFor(lines, events));
        await atomicWriteFile(fs, staging, META_FILE, Buffer.from(JSON.stringify(meta)));
        if (await fs.lstat(paths.dir)) await fs.removeTree(paths.dir).catch(() => undefined); // an empty leftover
        await fs.rename(staging, paths.dir);
      } catch (error) {
        await fs.removeTree(staging).catch(() => undefined);
        if (['EEXIST', 'ENOTEMPTY'].includes(errorCode(error) ?? '')) throw sessionExists(sessionId);
        throw error;
      }
      await fs.fsyncDir(options.dir);
      // Whatever this process knew about an earlier session of this id is stale now.
      sessions.forget(sessionId);
    } catch (error) {
      throw asIoError(error, `Could not create session "${sessionId}"`);
    }
  });
}
