import { abortReason } from '@troupe/kernel/util';
import { Effect } from 'effect';

/**
 * Runs `work` for every item with at most `maxParallel` in flight, keeping result order.
 * Each item's outcome is settled separately (one failure never cancels its siblings). An aborted
 * signal interrupts the run: no new item starts, the in-flight items' signals abort, and this
 * rejects with the abort reason. Effect's `forEach` does the bounding and interruption; callers
 * see a Promise.
 * @param items - the work items
 * @param maxParallel - 1 or more
 * @param signal - cancels the remaining work
 * @param work - the per-item job; its signal aborts when the run is cancelled (a job declared
 *   without the third parameter is given `signal` itself, and no signal is made per item)
 * @returns one settled result per item, in input order
 */
export function mapBounded<T, R>(
  items: readonly T[],
  maxParallel: number,
  signal: AbortSignal,
  work: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  // Effect makes (and at the end aborts) a signal per item only for a job that takes one: work
  // that listens to a signal of its own (a stage call follows the turn's) does not pay for it.
  const wantsSignal = work.length >= 3;
  const settle = (item: T, index: number) =>
    Effect.tryPromise({ try: wantsSignal ? (itemSignal: AbortSignal) => work(item, index, itemSignal) : () => work(item, index, signal), catch: (reason) => reason }).pipe(
      Effect.match({
        onFailure: (reason): PromiseSettledResult<R> => ({ status: 'rejected', reason }),
        onSuccess: (value): PromiseSettledResult<R> => ({ status: 'fulfilled', value }),
      }),
    );
  const run = Effect.forEach(items, settle, { concurrency: Math.max(1, maxParallel) });
  return Effect.runPromise(run, { signal }).then(
    (results) => {
      if (signal.aborted) throw abortReason(signal);
      return [...results];
    },
    (error: unknown) => {
      throw signal.aborted ? abortReason(signal) : error;
    },
  );
}
