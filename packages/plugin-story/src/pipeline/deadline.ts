import { abortReason } from '@troupe/kernel/util';
import type { Clock } from '@troupe/kernel';
import { Effect } from 'effect';

/**
 * Runs `work` for at most `ms` on `clock`. The work gets its own signal, which aborts when the
 * time is up (so an HTTP model call is cut) or `cancel` aborts. At the limit this rejects with
 * `onTimeout()` right away, even when the work ignores its signal: a model that never answers
 * cannot hold the turn. When `cancel` aborts, it rejects with the abort reason instead (a player's
 * cancellation is never a timeout). Effect does the racing and interruption; callers only see a
 * Promise.
 * @param clock - the harness clock (virtual in tests)
 * @param ms - the time allowed; `0` or less fails at once without starting the work
 * @param cancel - the turn's signal
 * @param onTimeout - the error to reject with at the limit
 * @param work - the job, which should pass its signal to all I/O
 * @returns the work's value
 * @throws `onTimeout()`, the work's own failure, or the abort reason of `cancel`
 */
export function runWithin<T>(clock: Clock, ms: number, cancel: AbortSignal, onTimeout: () => Error, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (cancel.aborted) return Promise.reject(abortReason(cancel));
  if (ms <= 0) return Promise.reject(onTimeout());
  const job = Effect.tryPromise({ try: (signal) => work(signal), catch: (error) => error });
  const limit = Effect.promise((signal) => clock.sleep(ms, signal).catch(() => undefined)).pipe(Effect.andThen(Effect.suspend(() => Effect.fail(onTimeout()))));
  return Effect.runPromise(Effect.raceFirst(job, limit), { signal: cancel }).catch((error: unknown) => {
    throw cancel.aborted ? abortReason(cancel) : error;
  });
}
