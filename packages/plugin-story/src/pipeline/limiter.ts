import { abortReason } from '@troupe/kernel/util';

/**
 * Runs `work` for every item with at most `maxParallel` in flight, keeping result order.
 * Each item's outcome is settled separately (one failure never cancels its siblings), and a
 * finished item's slot goes to the next item at once. An aborted signal interrupts the run: no new
 * item starts, the in-flight items' signals abort, and this rejects with the abort reason right
 * away (even when an item ignores its signal).
 *
 * Written as plain slots rather than Effect's `forEach` (which it was until session 5): both ends
 * of a stage wave — its first request and its last answer — are on the critical path of a turn,
 * and after an idle model wait Effect's run (a fiber per item, an async_hooks resource per
 * suspension) cost twice what this does (≈ 110 µs against ≈ 55 µs per wave of four; see
 * docs/BENCHMARKS.md, "Session 5 — orchestration").
 * @param items - the work items
 * @param maxParallel - 1 or more
 * @param signal - cancels the remaining work
 * @param work - the per-item job; its signal aborts when the run is cancelled (a job declared
 *   without the third parameter is given `signal` itself, and no signal is made per item)
 * @param options - `jobsEndOnAbort`: every job rejects at once when `signal` aborts (a stage call
 *   whose deadline group listens to the same signal does), so the run adds no listener of its own:
 *   the first job to settle after the abort ends the run with the abort reason
 * @returns one settled result per item, in input order
 */
export function mapBounded<T, R>(
  items: readonly T[],
  maxParallel: number,
  signal: AbortSignal,
  work: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  options?: { readonly jobsEndOnAbort?: boolean },
): Promise<PromiseSettledResult<R>[]> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  const listen = options?.jobsEndOnAbort !== true;
  // A signal per item only for a job that takes one: work that listens to a signal of its own (a
  // stage call follows the turn's) does not pay for a controller per item.
  const perItem = work.length >= 3 ? new Set<AbortController>() : undefined;
  const slots = Math.max(1, maxParallel);
  return new Promise((resolve, reject) => {
    const results = new Array<PromiseSettledResult<R>>(items.length);
    let next = 0;
    let running = 0;
    let over = false;
    const onAbort = () => {
      if (over) return;
      over = true;
      const reason = abortReason(signal);
      for (const controller of perItem ?? []) controller.abort(reason);
      reject(reason);
    };
    const settle = (index: number, controller: AbortController | undefined, result: PromiseSettledResult<R>) => {
      running -= 1;
      if (controller) perItem?.delete(controller);
      if (over) return;
      // Without a listener, the first job to end after an abort ends the run.
      if (!listen && signal.aborted) {
        onAbort();
        return;
      }
      results[index] = result;
      fill();
    };
    // Starts items until every slot is busy; resolves once the last one has settled.
    const fill = () => {
      while (!over && running < slots && next < items.length) {
        const index = next++;
        running += 1;
        const controller = perItem ? new AbortController() : undefined;
        if (controller) perItem?.add(controller);
        let pending: Promise<R>;
        try {
          pending = Promise.resolve(work(items[index] as T, index, controller?.signal ?? signal));
        } catch (error) {
          pending = Promise.reject(error);
        }
        pending.then(
          (value) => settle(index, controller, { status: 'fulfilled', value }),
          (reason: unknown) => settle(index, controller, { status: 'rejected', reason }),
        );
      }
      if (!over && running === 0 && next >= items.length) {
        over = true;
        if (listen) signal.removeEventListener('abort', onAbort);
        resolve(results);
      }
    };
    if (listen) signal.addEventListener('abort', onAbort);
    fill();
  });
}
