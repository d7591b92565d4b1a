// Time-based control flow on the harness clock: retries and polling done by Effect, deadlines by
// `runWithin` (./run-within.ts, a plain race: it is on every model call's critical path). Every
// package that waits, retries or polls calls these Promise + AbortSignal functions, so the rules
// (cancellation wins and rejects with the abort reason, nothing is left scheduled after an abort,
// virtual time in tests) live in one place. Effect types never leave this file.
import { Duration, Clock as EffectClock, Effect, Schedule } from 'effect';
import { abortReason } from '../abort.js';
import { type Clock, systemClock } from '../ports/clock.js';

export { runWithin, runWithinLazily } from './run-within.js';
export type { LazySignal } from './run-within.js';

/**
 * Runs `effect` with Effect's clock backed by `clock`, so its sleeps, timeouts and schedules use
 * the harness clock (a `ManualClock` in tests). The system clock needs no adapter.
 */
function onClock<A, E>(effect: Effect.Effect<A, E>, clock: Clock): Effect.Effect<A, E> {
  if (clock === systemClock) return effect;
  const nanos = () => BigInt(Math.round(clock.now() * 1_000_000));
  return Effect.provideService(effect, EffectClock.Clock, {
    currentTimeMillisUnsafe: () => clock.now(),
    currentTimeMillis: Effect.sync(() => clock.now()),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: nanos,
    monotonicTimeNanos: Effect.sync(nanos),
    // An interrupted sleep rejects with the interruption's reason; that is not a failure here.
    sleep: (duration) => Effect.promise((signal) => clock.sleep(Duration.toMillis(duration), signal).catch(() => undefined)),
  });
}

/** Runs `effect` to a Promise; an abort of `signal` rejects with its reason, never Effect's. */
function run<A, E>(effect: Effect.Effect<A, E>, clock: Clock, signal: AbortSignal): Promise<A> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return Effect.runPromise(onClock(effect, clock), { signal }).catch((error: unknown) => {
    throw signal.aborted ? abortReason(signal) : error;
  });
}

const neverAborted = new AbortController().signal;

/** Options of {@link retryWithDelays}. */
export interface RetryWithDelaysOptions<T> {
  /** Time source of the pauses (default: the system clock). */
  readonly clock?: Clock;
  /** Cancels the attempt in flight and the pause; the call then rejects with the abort reason. */
  readonly signal?: AbortSignal;
  /**
   * One attempt.
   * @param retry - 0 for the first attempt, then 1, 2 …
   */
  attempt(retry: number): PromiseLike<T>;
  /**
   * Decides after a failure: the pause before the next attempt (ms), or `undefined` to give up and
   * reject with `error`. May throw to reject with another error instead (e.g. a `Retry-After`
   * longer than the caller will wait).
   * @param error - what the attempt threw
   * @param retry - index of the failed attempt (0 for the first)
   */
  delayBeforeRetry(error: unknown, retry: number): number | undefined;
}

interface FailedAttempt {
  readonly error: unknown;
  readonly delayMs: number | undefined;
}

/**
 * Runs `attempt` until it succeeds or `delayBeforeRetry` gives up; each pause is an Effect
 * schedule step on `clock` and listens to `signal` (an abort ends the attempt or the wait at once
 * and rejects with the abort reason; no timer is left behind).
 * @param options - attempt, retry decision, clock and signal
 * @returns the first successful result
 * @throws the last failure (or what `delayBeforeRetry` threw), or the abort reason
 */
export function retryWithDelays<T>(options: RetryWithDelaysOptions<T>): Promise<T> {
  const signal = options.signal ?? neverAborted;
  let retry = 0;
  const once = Effect.suspend(() => {
    const index = retry++;
    return Effect.tryPromise({
      try: () => options.attempt(index),
      catch: (error): FailedAttempt => {
        if (signal.aborted) return { error: abortReason(signal), delayMs: undefined };
        try {
          return { error, delayMs: options.delayBeforeRetry(error, index) };
        } catch (replaced) {
          return { error: replaced, delayMs: undefined };
        }
      },
    });
  });
  const pauses = Schedule.forever.pipe(
    Schedule.setInputType<FailedAttempt>(),
    Schedule.modifyDelay(({ input }) => Effect.succeed(Duration.millis(input.delayMs ?? 0))),
  );
  const retried = once.pipe(
    Effect.retry({ schedule: pauses, while: (failed: FailedAttempt) => failed.delayMs !== undefined }),
    Effect.mapError((failed) => failed.error),
  );
  return run(retried, options.clock ?? systemClock, signal);
}

/** What one poll of {@link pollOnGrid} found. */
export type PollResult<T> =
  | { readonly done: true; readonly value: T }
  | {
      readonly done: false;
      /**
       * The next poll waits at least this long from now (ms), e.g. a service's `Retry-After`; it
       * still starts on a grid point and never after the budget.
       */
      readonly notBeforeMs?: number;
    };

/** Options of {@link pollOnGrid}. */
export interface PollOnGridOptions<T> {
  /** Time source (virtual in tests). */
  readonly clock: Clock;
  /** Cancels the poll in flight and the wait; the call then rejects with the abort reason. */
  readonly signal?: AbortSignal;
  /** Spacing of the grid (ms). */
  readonly intervalMs: number;
  /** Total time allowed from the first poll (ms). */
  readonly budgetMs: number;
  /**
   * One poll. Throw to end the polling with that error; return `{done: false}` for "not yet"
   * (including a failure the caller treats as a missed poll).
   * @param remainingMs - time left in the budget (at least 1)
   */
  poll(remainingMs: number): PromiseLike<PollResult<T>>;
}

/** How {@link pollOnGrid} ended without an exception. */
export type PollOutcome<T> = { readonly done: true; readonly value: T; readonly polls: number } | { readonly done: false; readonly polls: number };

/**
 * Polls on a fixed grid from the first poll (t = 0, interval, 2 × interval …), at most one poll in
 * flight, until a poll is done or the budget is spent. A poll that answers after one or more grid
 * points have passed skips them: the next poll starts at the first grid point not before its
 * answer, so there is never a catch-up burst and never more than `budget / interval + 1` polls.
 * The waits are an Effect schedule on `clock`.
 * @param options - clock, signal, interval, budget and the poll
 * @returns the done value, or `{done: false}` when the budget ran out; with the number of polls
 * @throws what a poll threw, or the abort reason
 */
export function pollOnGrid<T>(options: PollOnGridOptions<T>): Promise<PollOutcome<T>> {
  const { clock, intervalMs, budgetMs } = options;
  const signal = options.signal ?? neverAborted;
  let start = 0;
  let tick = 0;
  let polls = 0;
  const pollOnce = Effect.suspend(() => {
    const remaining = start + budgetMs - clock.now();
    if (remaining <= 0) return Effect.succeed<PollResult<T> | 'spent'>('spent');
    polls += 1;
    return Effect.tryPromise({ try: () => options.poll(Math.max(1, remaining)), catch: (error) => error });
  });
  // The pause to the first grid point not before now (plus a poll's `notBeforeMs`) and after the
  // current one, cut at the budget.
  const grid = Schedule.forever.pipe(
    Schedule.setInputType<PollResult<T> | 'spent'>(),
    Schedule.modifyDelay(({ input }) =>
      Effect.sync(() => {
        const now = clock.now();
        // A NaN or negative ask (a caller's bad arithmetic) is no ask: NaN would stop the grid. An
        // infinite one lands on the budget's end like any ask past it.
        const asked = input !== 'spent' && !input.done ? input.notBeforeMs : undefined;
        const notBefore = asked !== undefined && asked > 0 ? asked : 0;
        tick = Math.max(tick + 1, Math.ceil((now + notBefore - start) / intervalMs));
        return Duration.millis(Math.max(0, Math.min(start + tick * intervalMs, start + budgetMs) - now));
      }),
    ),
  );
  const polled = Effect.suspend(() => {
    start = clock.now();
    return pollOnce.pipe(Effect.repeat({ schedule: grid, until: (result) => result === 'spent' || result.done }));
  });
  return run(polled, clock, signal).then((result) => (result !== 'spent' && result.done ? { done: true, value: result.value, polls } : { done: false, polls }));
}
