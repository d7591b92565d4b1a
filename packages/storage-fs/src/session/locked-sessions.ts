import { KernelStorageError } from '@troupe/kernel';
import { asIoError } from '../fs/atomic-write.js';
import { type HeldLock, withFileLock } from '../fs/file-lock.js';
import { KeyedQueue } from '../fs/keyed-queue.js';
import { sweepTemps } from '../fs/sweep-temps.js';
import type { FsSessionLogOptions } from './fs-session-log.js';
import { appendIndexSegment, catchUpIndexFile, type IndexFileState, loadIndexFile, rewriteIndexFile } from './index-file.js';
import { eventNotFound, IndexMismatch } from './session-errors.js';
import { type SessionPaths, sessionPaths } from './session-paths.js';
import { SessionIndex } from './session-index.js';
import { lstatQuick } from '../fs/stat-now.js';

/**
 * Most sessions whose index this process keeps; the least recently used one is dropped beyond it
 * (its next use re-seeds from `index.jsonl`), so a server with many conversations stays bounded.
 */
export const MAX_CACHED_SESSIONS = 64;

/** What this process keeps per session. */
interface SessionState {
  readonly index: SessionIndex;
  /** Where `index.jsonl` stands; undefined when it must be rewritten from `index`. */
  file: IndexFileState | undefined;
}

/**
 * Work done under the session lock with an up-to-date index.
 * @param index - the session's index, refreshed from the log
 * @param paths - the session's files
 * @param lock - the held cross-process lock (check it before writing)
 * @returns the work's result
 */
export type LockedWork<T> = (index: SessionIndex, paths: SessionPaths, lock: HeldLock) => Promise<T>;

/**
 * Serialises access to sessions (in this process by a keyed queue, across processes by a lock
 * file) and keeps each session's index, in memory and in `index.jsonl`, in step with its log.
 */
export class LockedSessions {
  readonly #options: FsSessionLogOptions;
  readonly #queue = new KeyedQueue();
  readonly #states = new Map<string, SessionState>();

  /** @param options - where sessions live, which fs layer to use and how long to wait for a lock */
  constructor(options: FsSessionLogOptions) {
    this.#options = options;
  }

  /**
   * Where a session's files live.
   * @param sessionId - an already validated session id
   * @returns the session's paths
   */
  paths(sessionId: string): SessionPaths {
    return sessionPaths(this.#options.dir, sessionId);
  }

  /**
   * Whether the session has an events file (a folder alone is an empty leftover, not a session).
   * @param sessionId - an already validated session id
   * @returns true when the session exists
   * @throws the fs layer's error when `lstat` fails for a reason other than absence
   */
  async exists(sessionId: string): Promise<boolean> {
    return (await lstatQuick(this.#options.fs, this.paths(sessionId).events))?.kind === 'file';
  }

  /**
   * Runs `work` after every other queued call on this session in this process (no file lock).
   * @param sessionId - the session
   * @param work - the work
   * @returns the work's result
   * @throws whatever `work` throws
   */
  exclusive<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    return this.#queue.run(sessionId, work);
  }

  /**
   * Drops what this process knows about a session, so its next use reads it from disk again.
   * @param sessionId - the session
   */
  forget(sessionId: string): void {
    this.#states.delete(sessionId);
  }

  /**
   * Refuses a session folder that is a symlink or special file, exactly as for workspaces: the
   * store never follows links, so a linked folder copied into the data dir cannot carry the log,
   * its lock or its index outside.
   * @param sessionId - an already validated session id
   * @returns true when the folder exists
   * @throws {KernelStorageError} SESSION_CORRUPT naming the folder
   */
  async assertRealFolder(sessionId: string): Promise<boolean> {
    const dir = this.paths(sessionId).dir;
    const stat = await lstatQuick(this.#options.fs, dir);
    if (stat && stat.kind !== 'directory') {
      throw new KernelStorageError('SESSION_CORRUPT', `${dir} is not a real folder (symbolic links are never followed); replace it with a real folder or delete the session`);
    }
    return stat !== undefined;
  }

  /**
   * Runs read-only `work` without the session lock when the log is exactly what this process's
   * index describes (the inode and size it had after the last locked call). That is safe: an
   * append only adds bytes after the indexed lines, a repair only cuts a torn tail after them,
   * and `work` checks every line it reads against its indexed id. Otherwise — first use in this
   * process, another process appended, a torn tail, or `work` failing for any reason — it runs
   * under the lock as {@link LockedSessions.lockedIfExists} (a turn's many lookups take no lock).
   * @param sessionId - the session
   * @param work - read-only work (it may run twice)
   * @returns the work's result, or undefined for an unknown session
   * @throws {KernelStorageError} SESSION_CORRUPT, STORAGE_IO, or what `work` throws under the lock
   */
  async readIfExists<T>(sessionId: string, work: (index: SessionIndex, paths: SessionPaths) => Promise<T>): Promise<T | undefined> {
    const state = this.#states.get(sessionId);
    if (state) {
      const paths = this.paths(sessionId);
      try {
        const stat = await lstatQuick(this.#options.fs, paths.events);
        if (stat?.kind === 'file' && state.index.describes(stat)) {
          this.#states.delete(sessionId);
          this.#states.set(sessionId, state);
          return await work(state.index, paths);
        }
      } catch {
        // Anything odd (the index changed under us, a damaged line): the locked path decides.
      }
    }
    return this.lockedIfExists(sessionId, work);
  }

  /**
   * Like {@link LockedSessions.locked} with `retry`, but an unknown session yields undefined
   * without creating anything.
   * @param sessionId - the session
   * @param work - read-only work (it may run twice)
   * @returns the work's result, or undefined for an unknown session
   * @throws {KernelStorageError} SESSION_CORRUPT, STORAGE_IO, or what `work` throws
   */
  async lockedIfExists<T>(sessionId: string, work: LockedWork<T>): Promise<T | undefined> {
    if (!(await this.exists(sessionId))) return undefined;
    return this.locked(sessionId, { retry: true }, work);
  }

  /**
   * Runs `work` under the session lock with an up-to-date index, then brings `index.jsonl` up to
   * date. When the index came from `index.jsonl` and turns out not to match the log (a line is
   * not the indexed event), it is rebuilt by one scan and a read-only `work` runs again.
   * @param sessionId - the session (its folder must exist)
   * @param options - `retry`: whether `work` is read-only and may run a second time;
   * `folderChecked`: the caller just ran {@link LockedSessions.assertRealFolder} (not repeated)
   * @param work - the work
   * @returns the work's result
   * @throws {KernelStorageError} SESSION_EVENT_NOT_FOUND (folder gone), SESSION_CORRUPT, STORAGE_IO,
   * or what `work` throws
   */
  async locked<T>(sessionId: string, options: { retry: boolean; folderChecked?: boolean }, work: LockedWork<T>): Promise<T> {
    const fs = this.#options.fs;
    const paths = this.paths(sessionId);
    return this.#queue.run(sessionId, async () => {
      const onMissing = () => eventNotFound(sessionId, '(session folder)');
      try {
        if (!options.folderChecked) await this.assertRealFolder(sessionId);
        return await withFileLock(fs, paths.lock, { onMissing, timeoutMs: this.#options.lockTimeoutMs, leaseMs: this.#options.lockLeaseMs }, async (lock) => {
          const repair = () => lock.assertHeld('cutting a torn last line');
          let state = this.#states.get(sessionId);
          if (state) {
            // Most recently used last (a Map keeps insertion order).
            this.#states.delete(sessionId);
            this.#states.set(sessionId, state);
          } else {
            // First use in this process: drop lock temps left by killed processes.
            await sweepTemps(fs, paths.dir, false);
            state = { index: new SessionIndex(), file: undefined };
            this.#states.set(sessionId, state);
            if (this.#states.size > MAX_CACHED_SESSIONS) this.#states.delete(this.#states.keys().next().value as string);
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
        if (state.file.covered < index.size) await appendIndexSegment(fs, paths.index, paths.events, state.file, index.spansFrom(state.file.covered), index.lastAppended);
        return;
      }
      state.file = await rewriteIndexFile(fs, paths.dir, paths.events, index.spans);
    } catch {
      state.file = undefined; // rewritten on the next call
    }
  }
}
