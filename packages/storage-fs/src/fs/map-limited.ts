/**
 * Maps `items` with at most `limit` calls of `work` in flight, keeping the results in order:
 * independent stats and reads overlap in libuv's thread pool instead of waiting for each other,
 * without starting thousands of calls at once on a big tree.
 * @param items - the inputs
 * @param limit - most calls running at once (at least 1)
 * @param work - the async call per item
 * @returns the results, in the order of `items`
 * @throws the first error of any call (the others still finish in the background)
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
