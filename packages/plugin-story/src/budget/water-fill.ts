/**
 * Equal shares of `total`, where a part smaller than its share keeps its size and frees the rest
 * for the others (so a small part is never cut to make room for a large one).
 * @param sizes - each part's size
 * @param total - what the parts may take together
 * @returns each part's share, in the order of `sizes` (never more than its size)
 */
export function waterFill(sizes: readonly number[], total: number): number[] {
  const shares = sizes.map(() => 0);
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]!);
  let left = total;
  order.forEach((i, n) => {
    const share = Math.floor(left / (order.length - n));
    shares[i] = Math.min(sizes[i]!, share);
    left -= shares[i]!;
  });
  return shares;
}
