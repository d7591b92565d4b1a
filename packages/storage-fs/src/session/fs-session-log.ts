import { join } from 'node:path';
import {
  type EventKey,
  KernelStorageError,
  type NewSessionEvent,
  type ReadEventsOptions,
  type SessionEvent,
  type SessionLog,
  parseExport,
  validateEventKey,
  validateNewEvents,
  validateSessionId,
} from '@troupe/kernel';
import { asIoError, atomicWriteFile, writeFully } from '../fs/atomic-write.js';
import { type HeldLock, withFileLock } from '../fs/file-lock.js';
import { KeyedQueue } from '../fs/keyed-queue.js';
import { readFileBytes } from '../fs/read-file.js';
import { APPEND_NOFOLLOW, errorCode, type StorageFs } from '../fs/storage-fs.js';
import { tempName } from '../fs/temp-names.js';
import { mkdirp } from '../tree/safe-paths.js';
import { sweepDeadTemps, sweepTemps } from '../fs/sweep-temps.js';
import { eventLine, parseEventLine, sequenceOf } from './event-lines.js';
import { appendIndexSegment, catchUpIndexFile, INDEX_FILE, type IndexFileState, indexFileFor, loadIndexFile, rewriteIndexFile } from './index-file.js';
import { SessionIndex } from './session-index.js';

/** Options for {@link FsSessionLog}. */
export interface FsSessionLogOptions {
  /** Folder holding one folder per session (`<root>/sessions`). */
  readonly dir: string;
  /** File-system layer (tests inject faults). */
  readonly fs: StorageFs;
  /** How long to wait for another process's lock before STORAGE_IO (default 30 s). */
  readonly lockTimeoutMs?: number;
}

/** The files of one session. */
interface SessionPaths {
  /** `<dir>/<id>` */
  readonly dir: string;
  /** `events.jsonl`: one event per line */
  readonly events: string;
  /** `session.json`: `{nextSeq, parent?}` of a branched or imported session */
  readonly meta: string;
  /** the cross-process lock file */
  readonly lock: string;
  /** `index.jsonl`: the persisted index (a cache, see `index-file.ts`) */
  readonly index: string;
}

/** What this process keeps per session. */
interface SessionState {
  readonly index: SessionIndex;
  /** Where `index.jsonl` stands; undefined when it must be rewritten from `index`. */
  file: IndexFileState | undefined;
}

/** Thrown inside a locked call when the index pointed at a line that is not the expected event. */
class IndexMismatch extends Error {}

/**
 * A {@link SessionLog} as JSON Lines on disk: `<dir>/<id>/events.jsonl` (one fsync'ed append per
 * batch; a torn last line is truncated on open), `session.json` for branches/imports, and an
 * index (in memory, persisted as `index.jsonl`) so `findLatest` reads one line instead of the
 * file, even in a fresh process. Passes the contract suite.
 */
export class FsSessionLog implements SessionLog {
  readonly #options: FsSessionLogOptions;
  readonly #queue = new KeyedQueue();
  readonly #states = new Map<string, SessionState>();

  /** @param options - where sessions live and which fs layer to use */
  constructor(options: FsSessionLogOptions) {
    this.#options = options;
  }

  /**
   * Appends a batch with one write and one fsync; all or none.
   * @param sessionId - the session (created on its first append)
   * @param events - the batch, in order; ids are assigned here
   * @returns the stored events with their ids
   * @throws {KernelStorageError} SESSION_INVALID_ID, SESSION_INVALID_EVENT (not an array, or a bad
   * event), SESSION_CORRUPT, STORAGE_IO (disk failure or lost lock; nothing appended)
   */
  async append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    validateNewEvents(events);
    const fs = this.#options.fs;
    const paths = this.#paths(sessionId);
    await mkdirp(fs, paths.dir).catch((error: unknown) => {
      throw asIoError(error, `Could not create session "${sessionId}"`);
    });
    return this.#locked(sessionId, { retry: false }, async (index, _paths, lock) => {
      let seq = index.nextSeq();
      const stored = events.map((event) => ({ ...event, id: `e${seq++}`, sessionId }));
      const lines = stored.map(eventLine);
      const bytes = Buffer.from(lines.join(''), 'utf8');
      const created = index.size === 0 && !(await fs.lstat(paths.events));
      await lock.assertHeld('appending (nothing was appended)');
      const fd = await fs.open(paths.events, APPEND_NOFOLLOW, 0o644);
      try {
        await writeFully(fs, fd, bytes, index.size);
        await fs.fsync(fd);
      } catch (error) {
        // All or none: cut a partial batch off again.
        await fs.ftruncate(fd, index.size).catch(() => undefined);
        throw asIoError(error, `Could not append to session "${sessionId}"`);
      } finally {
        await fs.close(fd);
      }
      if (created) await fs.fsyncDir(paths.dir);
      const result = lines.map((line) => parseEventLine(line.slice(0, -1), 'appended line'));
      index.addAppended(result, lines.map((line) => Buffer.byteLength(line, 'utf8')));
      return result;
    });
  }

  /**
   * Events in append order (an unknown session reads as empty).
   * @param sessionId - the session
   * @param options - `afterId`: only events after this one
   * @returns the events
   * @throws {KernelStorageError} SESSION_EVENT_NOT_FOUND, SESSION_CORRUPT, STORAGE_IO
   */
  async read(sessionId: string, options: ReadEventsOptions = {}): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    const events = await this.#lockedIfExists(sessionId, async (index, paths) => {
      // Read from the `afterId` event itself, so a wrong position (the spans may come from the
      // persisted index) is caught by checking each line's id against its span.
      let start = 0;
      if (options.afterId !== undefined) {
        const position = index.positionOf(options.afterId);
        if (position === undefined) throw notFound(sessionId, options.afterId);
        start = position;
      }
      const first = index.spans[start];
      if (!first) return [];
      const bytes = await readFileBytes(this.#options.fs, paths.events, first.start, index.size);
      const events = splitLines(bytes).map((line, offset) => parseEventLine(line, `${paths.events} line ${start + offset + 1}`));
      if (events.length !== index.spans.length - start || events.some((event, offset) => event.id !== index.spans[start + offset]?.id)) throw new IndexMismatch();
      if (options.afterId !== undefined && events[0]?.id !== options.afterId) throw new IndexMismatch();
      return options.afterId === undefined ? events : events.slice(1);
    });
    if (events === undefined && options.afterId !== undefined) throw notFound(sessionId, options.afterId);
    return events ?? [];
  }

  /**
   * The latest event with this type and key, read from its indexed line (no scan).
   * @param sessionId - the session
   * @param key - `{type, key}` as appended
   * @returns the event, or undefined when there is none
   * @throws {KernelStorageError} SESSION_INVALID_ID, SESSION_INVALID_EVENT (malformed key), SESSION_CORRUPT, STORAGE_IO
   */
  async findLatest(sessionId: string, key: EventKey): Promise<SessionEvent | undefined> {
    validateSessionId(sessionId);
    validateEventKey(key);
    return this.#lockedIfExists(sessionId, async (index, paths) => {
      const span = index.latest(key.type, key.key);
      if (!span) return undefined;
      // Never trust the offset blindly (it may come from the persisted index): the line (read
      // with the byte before it) must be whole and be exactly the indexed event, else the index
      // is rebuilt from the log.
      const from = Math.max(0, span.start - 1);
      const bytes = await readFileBytes(this.#options.fs, paths.events, from, span.end);
      const startsLine = span.start === 0 || bytes[0] === 0x0a;
      if (bytes.length !== span.end - from || bytes.at(-1) !== 0x0a || !startsLine) throw new IndexMismatch();
      const event = parseEventLine(bytes.subarray(span.start - from, -1).toString('utf8'), `${paths.events} event ${span.id}`);
      if (event.id !== span.id || event.type !== key.type || event.key !== key.key) throw new IndexMismatch();
      return event;
    });
  }

  /**
   * Copies events up to and including `atEventId` into a new session; the parent is only read.
   * @param sessionId - the parent
   * @param atEventId - the last event copied
   * @param newSessionId - the new session (must not exist)
   * @throws {KernelStorageError} SESSION_EXISTS, SESSION_EVENT_NOT_FOUND, STORAGE_IO
   */
  async branch(sessionId: string, atEventId: string, newSessionId: string): Promise<void> {
    validateSessionId(sessionId);
    validateSessionId(newSessionId);
    if (await this.#exists(newSessionId)) throw exists(newSessionId);
    const copied = await this.#lockedIfExists(sessionId, async (index, paths) => {
      const position = index.positionOf(atEventId);
      const span = position === undefined ? undefined : index.spans[position];
      if (!span) return undefined;
      // Read-only on the parent: its bytes are never rewritten.
      const lines = splitLines(await readFileBytes(this.#options.fs, paths.events, 0, span.end));
      const events = lines.map((line, at) => ({ ...parseEventLine(line, `${paths.events} line ${at + 1}`), sessionId: newSessionId }));
      if (events.length !== (position ?? 0) + 1 || events.at(-1)?.id !== atEventId) throw new IndexMismatch();
      return { events, nextSeq: index.nextSeq(), parent: { sessionId, atEventId } };
    });
    if (!copied) throw notFound(sessionId, atEventId);
    await this.#createFrom(newSessionId, copied.events, { nextSeq: copied.nextSeq, parent: copied.parent });
  }

  /**
   * The session's complete lines, byte for byte as stored.
   * @param sessionId - the session
   * @returns JSON Lines ('' for an unknown session)
   * @throws {KernelStorageError} SESSION_INVALID_ID, STORAGE_IO
   */
  async export(sessionId: string): Promise<string> {
    validateSessionId(sessionId);
    const text = await this.#lockedIfExists(sessionId, async (index, paths) =>
      (await readFileBytes(this.#options.fs, paths.events, 0, index.size)).toString('utf8'),
    );
    return text ?? '';
  }

  /**
   * Creates a session from an export (validated with the kernel's `parseExport`).
   * @param sessionId - the new session (must not exist)
   * @param jsonl - an export
   * @throws {KernelStorageError} SESSION_EXISTS, SESSION_INVALID_ID, SESSION_INVALID_EVENT, STORAGE_IO
   */
  async import(sessionId: string, jsonl: string): Promise<void> {
    validateSessionId(sessionId);
    const events = parseExport(jsonl).map((event) => ({ ...event, sessionId }));
    if (await this.#exists(sessionId)) throw exists(sessionId);
    const nextSeq = Math.max(1, ...events.map((event) => sequenceOf(event.id) + 1));
    await this.#createFrom(sessionId, events, { nextSeq });
  }

  /**
   * Ids of every session, sorted.
   * @returns session ids
   * @throws {KernelStorageError} STORAGE_IO
   */
  async list(): Promise<readonly string[]> {
    let names: string[];
    try {
      names = await this.#options.fs.readdir(this.#options.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw asIoError(error, `Could not list ${this.#options.dir}`);
    }
    const ids: string[] = [];
    for (const name of names) {
      try {
        validateSessionId(name);
      } catch {
        continue;
      }
      if (await this.#exists(name)) ids.push(name);
    }
    return ids.sort();
  }

  /** Builds a session in a temp folder, then renames it into place (never half-created). */
  async #createFrom(sessionId: string, events: readonly SessionEvent[], meta: { nextSeq: number; parent?: { sessionId: string; atEventId: string } }): Promise<void> {
    const fs = this.#options.fs;
    const paths = this.#paths(sessionId);
    await this.#queue.run(sessionId, async () => {
      try {
        await mkdirp(fs, this.#options.dir);
        await sweepDeadTemps(fs, this.#options.dir);
        if (await this.#exists(sessionId)) throw exists(sessionId);
        const staging = join(this.#options.dir, tempName());
        await fs.mkdir(staging);
        try {
          const lines = events.map(eventLine);
          await atomicWriteFile(fs, staging, 'events.jsonl', Buffer.from(lines.join(''), 'utf8'));
          // The new session's index, so its first reader does not scan it.
          await atomicWriteFile(fs, staging, INDEX_FILE, indexFileFor(lines, events));
          await atomicWriteFile(fs, staging, 'session.json', Buffer.from(JSON.stringify(meta)));
          if (await fs.lstat(paths.dir)) await fs.removeTree(paths.dir).catch(() => undefined); // an empty leftover
          await fs.rename(staging, paths.dir);
        } catch (error) {
          await fs.removeTree(staging).catch(() => undefined);
          if (['EEXIST', 'ENOTEMPTY'].includes(errorCode(error) ?? '')) throw exists(sessionId);
          throw error;
        }
        await fs.fsyncDir(this.#options.dir);
        this.#states.delete(sessionId);
      } catch (error) {
        throw asIoError(error, `Could not create session "${sessionId}"`);
      }
    });
  }

  async #exists(sessionId: string): Promise<boolean> {
    const paths = this.#paths(sessionId);
    return (await this.#options.fs.lstat(paths.events))?.kind === 'file';
  }

  /** Like {@link #locked}, but an unknown session yields undefined without creating anything. */
  async #lockedIfExists<T>(sessionId: string, work: LockedWork<T>): Promise<T | undefined> {
    if (!(await this.#exists(sessionId))) return undefined;
    return this.#locked(sessionId, { retry: true }, work);
  }

  /**
   * Runs `work` under the session lock with an up-to-date index, then brings `index.jsonl` up to
   * date. When the index came from `index.jsonl` and turns out not to match the log (a line is
   * not the indexed event), it is rebuilt by one scan and a read-only `work` runs again.
   */
  async #locked<T>(sessionId: string, options: { retry: boolean }, work: LockedWork<T>): Promise<T> {
    const fs = this.#options.fs;
    const paths = this.#paths(sessionId);
    return this.#queue.run(sessionId, async () => {
      const onMissing = () => notFound(sessionId, '(session folder)');
      try {
        return await withFileLock(fs, paths.lock, { onMissing, timeoutMs: this.#options.lockTimeoutMs }, async (lock) => {
          const repair = () => lock.assertHeld('cutting a torn last line');
          let state = this.#states.get(sessionId);
          if (!state) {
            // First use in this process: drop lock temps left by killed processes.
            await sweepTemps(fs, paths.dir, false);
            state = { index: new SessionIndex(), file: undefined };
            this.#states.set(sessionId, state);
          }
          const current = state;
          const seed = async (eventsSize: number) => {
            const loaded = await loadIndexFile(fs, paths.index, paths.events, eventsSize);
            current.file = loaded?.state;
            return loaded?.spans;
          };
          let result: T;
          let refreshed = false;
          try {
            await current.index.refresh(fs, paths.events, paths.meta, repair, seed);
            refreshed = true;
            result = await work(current.index, paths, lock);
          } catch (error) {
            const suspect = error instanceof IndexMismatch || (KernelStorageError.isInstance(error) && error.code === 'SESSION_CORRUPT');
            // Work that wrote (append) is never run twice; a failed refresh wrote nothing.
            if (!suspect || !current.index.seeded || (refreshed && !options.retry)) throw error;
            // The persisted index disagreed with the log: forget it and scan the log once.
            state = { index: new SessionIndex(), file: undefined };
            this.#states.set(sessionId, state);
            await state.index.refresh(fs, paths.events, paths.meta, repair);
            result = await work(state.index, paths, lock);
          }
          await this.#persistIndex(state, paths);
          return result;
        });
      } catch (error) {
        if (error instanceof IndexMismatch) {
          throw new KernelStorageError('SESSION_CORRUPT', `${paths.events} does not match its own index after a rebuild`);
        }
        throw asIoError(error, `Storage failure in session "${sessionId}"`);
      }
    });
  }

  /**
   * Brings `index.jsonl` up to the in-memory index: appends the lines it lacks (one unsynced
   * write), or rewrites it atomically when it is missing, foreign or torn. Failures are ignored:
   * the file is a cache, verified on every open, and the log itself is already durable.
   */
  async #persistIndex(state: SessionState, paths: SessionPaths): Promise<void> {
    const fs = this.#options.fs;
    const { index } = state;
    if (state.file && state.file.covered === index.size) return;
    try {
      if (state.file && (await catchUpIndexFile(fs, paths.index, state.file)) && state.file.covered <= index.size) {
        if (state.file.covered < index.size) await appendIndexSegment(fs, paths.index, paths.events, state.file, index.spansFrom(state.file.covered));
        return;
      }
      state.file = await rewriteIndexFile(fs, paths.dir, paths.events, index.spans);
    } catch {
      state.file = undefined; // rewritten on the next call
    }
  }

  #paths(sessionId: string): SessionPaths {
    const dir = join(this.#options.dir, sessionId);
    return { dir, events: join(dir, 'events.jsonl'), meta: join(dir, 'session.json'), lock: join(dir, 'lock'), index: join(dir, INDEX_FILE) };
  }
}

/** Work done under the session lock with an up-to-date index. */
type LockedWork<T> = (index: SessionIndex, paths: SessionPaths, lock: HeldLock) => Promise<T>;

function splitLines(bytes: Buffer): string[] {
  return bytes.toString('utf8').split('\n').slice(0, -1);
}

function notFound(sessionId: string, eventId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EVENT_NOT_FOUND', `Session "${sessionId}" has no event "${eventId}"`);
}

function exists(sessionId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EXISTS', `Session "${sessionId}" already exists`);
}
