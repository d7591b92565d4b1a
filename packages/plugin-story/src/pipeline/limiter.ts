import { abortReason } from '@troupe/kernel/util';

/**
 * Runs `work` for every item with at most `maxParallel` in flight, keeping result order.
 * Each item's outcome is settled separately (one failure never cancels its siblings); an
 * aborted signal stops starting new items and rejects with the abort reason.
 * @param items - the work items
 * @param maxParallel - 1 or more
 * @param signal - cancels the remaining work
 * @param work - the per-item job
 * @returns one settled result per item, in input order
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  maxParallel: number,
  signal: AbortSignal,
  work: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      if (signal.aborted) throw abortReason(signal);
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await work(items[index] as T, index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(maxParallel, items.length)) }, lane);
  await Promise.all(lanes);
  if (signal.aborted) throw abortReason(signal);
  return results;
}
