import { abortReason, raceAbort } from '../abort.js';
import { validateSessionId } from '../ports/session-log.js';
import type { HeldSessionTurn, LockSessionTurnOptions, SessionTurnLock } from '../ports/session-turn-lock.js';

// Nothing can take an in-process lock away from its holder, so the pre-commit check always passes.
const ALWAYS_HELD: HeldSessionTurn = { assertHeld: async () => {} };

/**
 * The in-process {@link SessionTurnLock}: a promise chain per session, so every holder sharing
 * this object (several harnesses on one `MemorySessionLog`) runs one turn of a session at a
 * time, in call order. A cancelled waiter leaves the chain at once; its place passes on when the
 * holder before it finishes. Dies with the process, like everything in memory.
 */
export class MemoryTurnLocks implements SessionTurnLock {
  readonly #tails = new Map<string, Promise<void>>();

  lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options: LockSessionTurnOptions = {}): Promise<T> {
    try {
      validateSessionId(sessionId);
    } catch (error) {
      return Promise.reject(error);
    }
    if (options.signal?.aborted) return Promise.reject(abortReason(options.signal));
    const previous = this.#tails.get(sessionId);
    return previous ? this.#waitThenRun(sessionId, previous, work, options.signal) : this.#runFree(sessionId, work);
  }

  // Nobody holds the session: the work runs at once and its own settling is the tail (the usual
  // case, one promise and one callback: this runs for every turn on a MemorySessionLog).
  #runFree<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = Promise.resolve(work(ALWAYS_HELD));
    } catch (error) {
      return Promise.reject(error);
    }
    const forget = () => {
      if (this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId);
    };
    const tail: Promise<void> = running.then(forget, forget);
    this.#tails.set(sessionId, tail);
    return running;
  }

  async #waitThenRun<T>(sessionId: string, previous: Promise<void>, work: (turn: HeldSessionTurn) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next waiter waits for the holder before us as well as for us (we may leave early).
    const tail = previous.then(() => mine);
    this.#tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId);
    });
    try {
      await (signal ? raceAbort(previous, signal) : previous);
    } catch (error) {
      release();
      throw error;
    }
    try {
      return await work(ALWAYS_HELD);
    } finally {
      release();
    }
  }
}
