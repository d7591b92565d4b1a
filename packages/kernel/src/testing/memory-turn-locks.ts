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

  async lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options: LockSessionTurnOptions = {}): Promise<T> {
    validateSessionId(sessionId);
    if (options.signal?.aborted) throw abortReason(options.signal);
    const previous = this.#tails.get(sessionId);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The next waiter waits for the holder before us as well as for us (we may leave early).
    const tail = previous ? previous.then(() => mine) : mine;
    this.#tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId);
    });
    // Nobody holds the session: no wait, so nothing to race against the signal.
    if (previous) {
      try {
        await (options.signal ? raceAbort(previous, options.signal) : previous);
      } catch (error) {
        release();
        throw error;
      }
    }
    try {
      return await work(ALWAYS_HELD);
    } finally {
      release();
    }
  }
}
