import type { Clock } from '../ports/clock.js';

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * A {@link Clock} that only moves when a test calls `advance`. Sleepers wake in time order, and
 * the promise jobs they start run before the next one wakes, so polling loops step exactly as
 * they would in real time.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #sleepers = new Set<Sleeper>();

  /** @param start - initial time in ms since the epoch (default 2026-01-01T00:00:00Z) */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Number of sleeps waiting (a leak check: 0 after everything is stopped). */
  get pendingTimers(): number {
    return this.#sleepers.size;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        at: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#sleepers.delete(sleeper);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', sleeper.onAbort, { once: true });
      this.#sleepers.add(sleeper);
    });
  }

  /**
   * Moves time forward by `ms`, waking every sleeper due on the way, in order.
   * @param ms - how far to move
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushJobs();
      const next = this.#nextDue(target);
      if (!next) break;
      this.#now = next.at;
      this.#sleepers.delete(next);
      next.signal?.removeEventListener('abort', next.onAbort);
      next.resolve();
    }
    this.#now = target;
    await flushJobs();
  }

  #nextDue(limit: number): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const sleeper of this.#sleepers) {
      if (sleeper.at > limit) continue;
      if (!best || sleeper.at < best.at || (sleeper.at === best.at && sleeper.seq < best.seq)) best = sleeper;
    }
    return best;
  }
}

/** Lets pending promise jobs (and I/O callbacks already due) run. */
async function flushJobs(): Promise<void> {
  for (let round = 0; round < 5; round++) await new Promise<void>((resolve) => setImmediate(resolve));
}
