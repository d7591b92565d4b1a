import { join } from 'node:path';
import { asIoError } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { errorCode } from '../fs/storage-fs.js';
import { tempName } from '../fs/temp-names.js';
import { parseEventLine } from './event-lines.js';
import type { FsSessionLogOptions } from './fs-session-log.js';
import type { LockedSessions } from './locked-sessions.js';

// What still works on a damaged session: reading out what is intact, and removing it. Neither
// trusts the index or repairs the log, so both work whatever a hand edit or a bad copy left.

/**
 * The intact lines of a session's log and the numbers of the lines left out.
 * @param sessions - the lock and index keeper
 * @param options - which fs layer to use
 * @param sessionId - the session (already validated)
 * @returns `{jsonl, skippedLines}` ('' and none for an unknown session)
 * @throws {KernelStorageError} SESSION_CORRUPT (a linked folder), STORAGE_IO
 */
export async function salvageSession(
  sessions: LockedSessions,
  options: FsSessionLogOptions,
  sessionId: string,
): Promise<{ jsonl: string; skippedLines: number[] }> {
  await sessions.assertRealFolder(sessionId);
  const paths = sessions.paths(sessionId);
  let bytes: Buffer;
  try {
    bytes = await readFileBytes(options.fs, paths.events);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { jsonl: '', skippedLines: [] };
    throw asIoError(error, `Could not read session "${sessionId}"`);
  }
  const kept: string[] = [];
  const skippedLines: number[] = [];
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  // A log ends with a newline; anything after the last one is a torn line.
  if (lines.at(-1) === '') lines.pop();
  for (const [index, line] of lines.entries()) {
    const whole = index < lines.length - 1 || text.endsWith('\n');
    try {
      if (!whole) throw new Error('torn');
      parseEventLine(line, `${paths.events} line ${index + 1}`);
      kept.push(`${line}\n`);
    } catch {
      skippedLines.push(index + 1);
    }
  }
  return { jsonl: kept.join(''), skippedLines };
}

/**
 * Removes a session folder: renamed aside (so it vanishes at once), then deleted. A symlink in
 * its place is removed as a link; what it points to is never touched.
 * @param sessions - the lock and index keeper
 * @param options - where sessions live and which fs layer to use
 * @param sessionId - the session (already validated)
 * @returns false when there was nothing to remove
 * @throws {KernelStorageError} STORAGE_IO
 */
export async function deleteSessionFolder(sessions: LockedSessions, options: FsSessionLogOptions, sessionId: string): Promise<boolean> {
  const fs = options.fs;
  const { dir } = sessions.paths(sessionId);
  const stat = await fs.lstat(dir);
  if (!stat) return false;
  const aside = join(options.dir, tempName());
  try {
    await fs.rename(dir, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw asIoError(error, `Could not delete session "${sessionId}"`);
  }
  try {
    await fs.fsyncDir(options.dir);
    if (stat.kind === 'directory') await fs.removeTree(aside);
    else await fs.unlink(aside);
  } catch (error) {
    throw asIoError(error, `Could not delete session "${sessionId}"`);
  }
  return true;
}
