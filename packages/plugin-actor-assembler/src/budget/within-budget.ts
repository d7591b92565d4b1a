/**
 * Keeps items, in the order given (most important first), while their token counts fit a limit;
 * for world info and other parts with a budget of their own (`contextKeys.tokenBudget.worldInfoTokens`).
 * @param items - candidates, most important first
 * @param tokensOf - tokens of one item (e.g. `budget.countMessage`)
 * @param limit - the budget in tokens
 * @returns the items kept and the items dropped, each in the given order
 */
export function selectWithinBudget<T>(items: readonly T[], tokensOf: (item: T) => number, limit: number): { kept: T[]; dropped: T[]; tokens: number } {
  const kept: T[] = [];
  const dropped: T[] = [];
  let tokens = 0;
  for (const item of items) {
    const cost = tokensOf(item);
    if (tokens + cost <= limit) {
      kept.push(item);
      tokens += cost;
    } else {
      dropped.push(item);
    }
  }
  return { kept, dropped, tokens };
}
