import { join } from 'node:path';
import { type HeldSessionTurn, KernelStorageError, type LockSessionTurnOptions, type SessionTurnLock } from '@troupe/kernel';
import { validateSessionId } from '@troupe/kernel/storage';
import { asIoError } from '../fs/atomic-write.js';
import { withFileLock } from '../fs/file-lock.js';
import { sweepDeadTemps } from '../fs/sweep-temps.js';
import type { StorageFs } from '../fs/storage-fs.js';
import { mkdirp } from '../tree/safe-paths.js';

/**
 * The folder (inside the sessions folder) holding one lock file per session with a turn running.
 * Apart from the session folders so that creating, branching, deleting or sweeping a session never
 * touches a turn's lock; its leading dot keeps it out of session listings (no session id starts
 * with one).
 */
export const TURN_LOCKS_FOLDER = '.turn-locks';

/** How long a turn waits for another process's turn of the same session (10 min: a slow model's whole turn). */
export const DEFAULT_TURN_LOCK_TIMEOUT_MS = 600_000;

/** A turn lock is held for seconds: re-trying every ≤ 50 ms hands it over quickly without busy polling. */
const TURN_LOCK_MAX_PAUSE_MS = 50;

/** Options for {@link FsSessionTurnLocks}. */
export interface FsSessionTurnLocksOptions {
  /** The sessions folder (`<root>/sessions`). */
  readonly dir: string;
  readonly fs: StorageFs;
  /** How long to wait for another process's turn of the session (default {@link DEFAULT_TURN_LOCK_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** The lease of the lock file (default 20 s, renewed every third of it while the turn runs). */
  readonly leaseMs?: number;
}

/**
 * The file-system {@link SessionTurnLock}: `<sessions>/.turn-locks/<sessionId>.lock`, taken with
 * storage-fs's cross-process `withFileLock`, so it cannot outlive its owner — a holder on this
 * host that died is broken at once (its pid is gone or reused), one on another host once its lease
 * (renewed while the turn runs) lapsed. The file is removed when the turn ends.
 */
export class FsSessionTurnLocks implements SessionTurnLock {
  readonly #options: FsSessionTurnLocksOptions;
  #swept = false;

  /** @param options - the sessions folder, fs layer, wait timeout and lease */
  constructor(options: FsSessionTurnLocksOptions) {
    this.#options = options;
  }

  /**
   * Runs `work` holding the session's turn lock (see {@link SessionTurnLock.lockSessionTurn}).
   * @param sessionId - the session (it need not exist yet)
   * @param work - the turn
   * @param options - `signal` cancels the wait
   * @returns what `work` returns
   * @throws {KernelStorageError} SESSION_INVALID_ID; STORAGE_IO when another process's turn held
   * the session past the timeout (the message names it) or the disk failed; the signal's reason
   */
  async lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options: LockSessionTurnOptions = {}): Promise<T> {
    validateSessionId(sessionId);
    const { fs } = this.#options;
    const dir = join(this.#options.dir, TURN_LOCKS_FOLDER);
    try {
      await mkdirp(fs, dir);
      if (!this.#swept) {
        // Lock attempts of killed processes leave temps here; only dead owners' are removed.
        await sweepDeadTemps(fs, dir);
        this.#swept = true;
      }
    } catch (error) {
      throw asIoError(error, `Could not prepare the turn locks folder ${dir}`);
    }
    const onMissing = () => new KernelStorageError('STORAGE_IO', `The turn locks folder ${dir} disappeared while taking the lock of session "${sessionId}"`);
    return withFileLock(
      fs,
      join(dir, `${sessionId}.lock`),
      {
        onMissing,
        timeoutMs: this.#options.timeoutMs ?? DEFAULT_TURN_LOCK_TIMEOUT_MS,
        leaseMs: this.#options.leaseMs,
        maxPauseMs: TURN_LOCK_MAX_PAUSE_MS,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (lock) => work({ assertHeld: (what) => lock.assertHeld(what) }),
    );
  }
}
