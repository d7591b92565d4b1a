import type { EventKey, HeldSessionTurn, LockSessionTurnOptions, NewSessionEvent, ReadEventsOptions, ReadTypedOptions, SessionEvent, SessionLog, SessionTurnLock, TypedEvents } from '@troupe/kernel';
import { serializeNewEvents, validateEventKey, validateReadTypedOptions, validateSessionId } from '@troupe/kernel/storage';
import { asIoError, writeFully } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { APPEND_NOFOLLOW, errorCode, type StorageFs } from '../fs/storage-fs.js';
import { mkdirp } from '../tree/safe-paths.js';
import { appendedEvent, eventLine, parseEventLine, splitLines } from './event-lines.js';
import { LockedSessions } from './locked-sessions.js';
import { branchSession, exportSession, importSession } from './session-copy.js';
import { deleteSessionFolder, salvageSession } from './session-rescue.js';
import { readTypedLines } from './read-typed.js';
import { eventNotFound, IndexMismatch } from './session-errors.js';
import { FsSessionTurnLocks } from './session-turn-locks.js';
import { lstatQuick } from '../fs/stat-now.js';
import { quickLayer } from '../fs/quick-layer.js';

/** Options for {@link FsSessionLog}. */
export interface FsSessionLogOptions {
  /** Folder holding one folder per session (`<root>/sessions`). */
  readonly dir: string;
  /** File-system layer (tests inject faults). */
  readonly fs: StorageFs;
  /** How long to wait for another process's lock before STORAGE_IO (default 30 s). */
  readonly lockTimeoutMs?: number;
  /**
   * Lease of the locks this process takes (default 20 s, renewed every third of it while held):
   * after a crash, a process on another host may break such a lock once its lease ran out.
   */
  readonly lockLeaseMs?: number;
  /**
   * How long a turn waits while another process runs a turn of the same session, before
   * STORAGE_IO naming that process (default 600 000: a slow model's whole turn).
   */
  readonly turnLockTimeoutMs?: number;
}

/**
 * A {@link SessionLog} as JSON Lines on disk: `<dir>/<id>/events.jsonl` (one fsync'ed append per
 * batch; a torn last line is truncated on open), `session.json` for branches/imports, and an
 * index (in memory, persisted as `index.jsonl`) so `findLatest` reads one line instead of the
 * file, even in a fresh process. Also a {@link SessionTurnLock}: processes sharing the folder run
 * the turns of a session one at a time (`sessions/.turn-locks/<id>.lock`). Passes the contract suites.
 */
export class FsSessionLog implements SessionLog, SessionTurnLock {
  readonly #options: FsSessionLogOptions;
  readonly #sessions: LockedSessions;
  readonly #turnLocks: FsSessionTurnLocks;

  /** @param options - where sessions live and which fs layer to use */
  constructor(options: FsSessionLogOptions) {
    const quick = { ...options, fs: quickLayer(options.fs) };
    this.#options = quick;
    this.#sessions = new LockedSessions(quick);
    this.#turnLocks = new FsSessionTurnLocks({ dir: quick.dir, fs: quick.fs, timeoutMs: quick.turnLockTimeoutMs, leaseMs: quick.lockLeaseMs });
  }

  /**
   * Runs `work` (a turn) holding the session's cross-process turn lock; the harness calls it
   * around every turn. A holder that dies releases it (see `withFileLock`).
   * @param sessionId - the session (it need not exist yet)
   * @param work - the turn
   * @param options - `signal` cancels the wait
   * @returns what `work` returns
   * @throws {KernelStorageError} SESSION_INVALID_ID, STORAGE_IO (waited past `turnLockTimeoutMs`,
   * naming the holder; or a disk failure); the signal's reason when cancelled
   */
  lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options?: LockSessionTurnOptions): Promise<T> {
    return this.#turnLocks.lockSessionTurn(sessionId, work, options);
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
    // Validation serialises each event's data; the lines are built from that text (never stringified twice).
    const dataJson = serializeNewEvents(events);
    const fs = this.#options.fs;
    const paths = this.#sessions.paths(sessionId);
    // One stat of the folder: it is refused when a link, created when missing, else used as is.
    if (!(await this.#sessions.assertRealFolder(sessionId))) {
      await mkdirp(fs, paths.dir).catch((error: unknown) => {
        throw asIoError(error, `Could not create session "${sessionId}"`);
      });
    }
    return this.#sessions.locked(sessionId, { retry: false, folderChecked: true }, async (index, _paths, lock) => {
      let seq = index.nextSeq();
      const stored = events.map((event) => ({ ...event, id: `e${seq++}`, sessionId }));
      const lines = stored.map((event, at) => eventLine(event, dataJson[at]));
      const bytes = Buffer.from(lines.join(''), 'utf8');
      const created = index.size === 0 && !(await lstatQuick(fs, paths.events));
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
      if (created) {
        await fs.fsyncDir(paths.dir);
        // The index learns the new file's inode now, so the lookups after this first append take
        // the lock-free path instead of re-reading the log under the lock once.
        const stat = await lstatQuick(fs, paths.events);
        if (stat) index.adoptCreatedFile(stat, bytes.length);
      }
      // The returned events equal the stored lines read back (a copy, as a later read returns
      // them), built from what the lines were written from: no line is parsed back.
      const result = stored.map((event, at) => appendedEvent(event, dataJson[at] as string));
      const lengths = lines.map((line) => Buffer.byteLength(line, 'utf8'));
      const last = lengths.at(-1) ?? 0;
      index.addAppended(result, lengths, bytes.subarray(bytes.length - last));
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
    const events = await this.#sessions.readIfExists(sessionId, async (index, paths) => {
      // Read from the `afterId` event itself, so a wrong position (the spans may come from the
      // persisted index) is caught by checking each line's id against its span.
      let start = 0;
      if (options.afterId !== undefined) {
        const position = index.positionOf(options.afterId);
        if (position === undefined) throw eventNotFound(sessionId, options.afterId);
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
    if (events === undefined && options.afterId !== undefined) throw eventNotFound(sessionId, options.afterId);
    return events ?? [];
  }

  /**
   * Events of some types only, read line by line from the index's record of each line's type:
   * the lines of other types (stage requests with whole prompts) are neither read nor parsed, and
   * with `limit` only the latest matching lines are read. Lines indexed by an older version
   * without their type are read and filtered instead.
   * @param sessionId - the session
   * @param options - the types, an optional `afterId`/`beforeId` range and `limit`
   * @returns the matching events in order, and how many matching ones the limit left out
   * @throws {KernelStorageError} SESSION_INVALID_ID, SESSION_INVALID_EVENT (bad options), SESSION_EVENT_NOT_FOUND, SESSION_CORRUPT, STORAGE_IO
   */
  async readTyped(sessionId: string, options: ReadTypedOptions): Promise<TypedEvents> {
    validateSessionId(sessionId);
    validateReadTypedOptions(options);
    const found = await this.#sessions.readIfExists(sessionId, (index, paths) => readTypedLines(this.#options.fs, index, paths.events, sessionId, options));
    if (found === undefined && (options.afterId !== undefined || options.beforeId !== undefined)) throw eventNotFound(sessionId, options.afterId ?? options.beforeId ?? '');
    return found ?? { events: [], earlier: 0 };
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
    return this.#sessions.readIfExists(sessionId, async (index, paths) => {
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
    await branchSession(this.#sessions, this.#options, sessionId, atEventId, newSessionId);
  }

  /**
   * The session's complete lines, byte for byte as stored.
   * @param sessionId - the session
   * @returns JSON Lines ('' for an unknown session)
   * @throws {KernelStorageError} SESSION_INVALID_ID, STORAGE_IO
   */
  async export(sessionId: string): Promise<string> {
    validateSessionId(sessionId);
    return exportSession(this.#sessions, this.#options, sessionId);
  }

  /**
   * Creates a session from an export (validated with the kernel's `parseExport`).
   * @param sessionId - the new session (must not exist)
   * @param jsonl - an export
   * @throws {KernelStorageError} SESSION_EXISTS, SESSION_INVALID_ID, SESSION_INVALID_EVENT, STORAGE_IO
   */
  async import(sessionId: string, jsonl: string): Promise<void> {
    validateSessionId(sessionId);
    await importSession(this.#sessions, this.#options, sessionId, jsonl);
  }

  /**
   * Every intact event of a session, even when its log is damaged (a hand edit, a bad copy): for
   * rescuing a session that {@link FsSessionLog.export} refuses. Reads the log as it is, without
   * its index and without repairing anything; lines that are not valid events are left out and
   * reported by number (1-based). A torn last line counts as skipped.
   * @param sessionId - the session
   * @returns the intact lines (JSON Lines, byte for byte) and the numbers of the skipped lines
   * @throws {KernelStorageError} SESSION_INVALID_ID, SESSION_CORRUPT (the folder is a link), STORAGE_IO
   */
  async salvage(sessionId: string): Promise<{ readonly jsonl: string; readonly skippedLines: readonly number[] }> {
    validateSessionId(sessionId);
    return this.#sessions.exclusive(sessionId, () => salvageSession(this.#sessions, this.#options, sessionId));
  }

  /**
   * Removes a session and its files, also when its log is damaged (renamed aside first, so it
   * disappears at once). A session folder that is a symlink loses only the link.
   * @param sessionId - the session
   * @returns false when there was no such session
   * @throws {KernelStorageError} SESSION_INVALID_ID, STORAGE_IO
   */
  async delete(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    return this.#sessions.exclusive(sessionId, async () => {
      const removed = await deleteSessionFolder(this.#sessions, this.#options, sessionId);
      this.#sessions.forget(sessionId);
      return removed;
    });
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
        // Not a session folder (e.g. a staging temp): skip it rather than fail the listing.
        continue;
      }
      if (await this.#sessions.exists(name)) ids.push(name);
    }
    return ids.sort();
  }
}
