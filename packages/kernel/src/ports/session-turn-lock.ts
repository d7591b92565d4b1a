import type { SessionLog } from './session-log.js';

/** Options of {@link SessionTurnLock.lockSessionTurn}. */
export interface LockSessionTurnOptions {
  /**
   * Cancels the wait for the lock: the call rejects with the signal's reason and `work` never
   * runs. Not consulted once `work` runs (the turn listens to its own signal).
   */
  readonly signal?: AbortSignal;
}

/** The session's turn lock as seen by the turn that holds it. */
export interface HeldSessionTurn {
  /**
   * Checks that the lock is still this holder's. The kernel calls it right before a turn's commit,
   * so a holder whose lock was taken from it (its lease ran out while its process stalled, its
   * database connection dropped) fails instead of committing beside the new holder.
   * @param what - what is about to happen, for the error message
   * @throws {KernelStorageError} STORAGE_IO when the lock is no longer held
   */
  assertHeld(what: string): Promise<void>;
}

/**
 * Optional storage capability: serialises the turns of one session across every process that
 * shares the store (two `serve` processes on one data folder, two app servers on one database).
 * A {@link SessionLog} that also implements this port is detected by the harness, which then runs
 * every turn and chat control of a session inside `lockSessionTurn` (after its own in-process
 * queue), so each turn reads the history the previous one committed.
 *
 * Rules every implementation keeps (the suite `describeSessionTurnLockContract` in
 * `@troupe/kernel/contracts` checks them):
 * - at most one `work` per session id runs at a time, across all handles on the same store;
 *   different sessions never wait for each other;
 * - the lock cannot outlive its holder: it is released when `work` settles (resolves or throws),
 *   and a holder that dies (process killed, connection lost) releases it without anyone's help,
 *   at once or within a bounded lease;
 * - waiting is bounded (the implementation's timeout → `KernelStorageError` `STORAGE_IO` naming
 *   the holder) and cancellable by `options.signal`;
 * - not reentrant: taking the same session's lock again inside `work` waits for itself.
 *
 * Implementations: `MemorySessionLog` (in-process, for tests and single-process apps), storage-fs
 * (a leased lock file per session), storage-postgres (an advisory lock).
 */
export interface SessionTurnLock {
  /**
   * Runs `work` holding the session's turn lock.
   * @param sessionId - the session (validated like the log's ids)
   * @param work - the critical section (a turn); gets {@link HeldSessionTurn}
   * @param options - `signal` cancels the wait
   * @returns what `work` returns
   * @throws {KernelStorageError} SESSION_INVALID_ID, STORAGE_IO (waited too long, or the store
   * failed); the signal's reason when the wait was cancelled; whatever `work` throws
   */
  lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options?: LockSessionTurnOptions): Promise<T>;
}

/**
 * Whether a session log also serialises turns across processes.
 * @param log - the harness's session log
 * @returns true when `log` implements {@link SessionTurnLock}
 */
export function hasSessionTurnLock(log: SessionLog): log is SessionLog & SessionTurnLock {
  return typeof (log as Partial<SessionTurnLock>).lockSessionTurn === 'function';
}
