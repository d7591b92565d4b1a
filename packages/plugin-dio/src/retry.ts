import { retryWithDelays } from '@troupe/kernel/util';
import type { Clock } from '@troupe/kernel';
import { type DioError, isTransient } from './errors.js';

/**
 * How long to wait before a retry: 200 ms doubling, capped at 1 s.
 * @param attempt - 0-based index of the failed attempt
 * @returns the pause in ms
 */
export function retryDelayMs(attempt: number): number {
  return Math.min(1_000, 200 * 2 ** attempt);
}

/**
 * Runs `attempt` until it succeeds, fails permanently, or the budget has no room for another try.
 * Only transient failures are retried, after the service's `Retry-After` when it sent one, else
 * after {@link retryDelayMs}, on the clock (an Effect schedule, see `retryWithDelays`). A wait
 * that does not fit in the budget is never started: the call fails at once with the last error
 * (its `details.retryAfterMs` names the wait). Cancellation rejects with the abort reason at once.
 * @param clock - time source (virtual in tests)
 * @param budgetMs - total time allowed, first attempt included
 * @param signal - cancels the whole thing
 * @param attempt - one try; receives the time left in the budget
 * @returns the first successful result
 * @throws the last failure, or the abort reason
 */
export function retryWithinBudget<T>(clock: Clock, budgetMs: number, signal: AbortSignal, attempt: (remainingMs: number) => Promise<T>): Promise<T> {
  const deadline = clock.now() + budgetMs;
  return retryWithDelays({
    clock,
    signal,
    attempt: () => attempt(Math.max(1, deadline - clock.now())),
    // Retry only when another attempt still fits in the budget after the pause.
    delayBeforeRetry: (error, retry) => {
      if (!isTransient(error)) return undefined;
      const asked = (error as DioError).details?.retryAfterMs;
      const delay = typeof asked === 'number' ? asked : retryDelayMs(retry);
      return clock.now() + delay < deadline ? delay : undefined;
    },
  });
}
