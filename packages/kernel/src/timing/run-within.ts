// The deadline of one piece of work on the harness clock, as one small race: a timer, a listener
// on the caller's signal and the work's own controller. It is written by hand rather than as an
// Effect `timeoutOrElse` on purpose: every stage call, handler and HTTP exchange runs through it,
// so it sits on the critical path of every model call. After an idle wait (a model answering
// after 20 ms) Effect's race (a fiber, two forked children, the sleep service, interruption of the
// loser) cost ≈ 180 µs from the answer to the caller, this race ≈ 70 µs; warm it is ≈ 10 µs
// against ≈ 2 µs (docs/BENCHMARKS.md, "Session 5 — orchestration"). The rules are the ones the
// Effect version had and `test/timing.test.ts` proves: cancellation wins and rejects with the
// abort reason, the limit rejects at once even when the work ignores its signal, nothing stays
// scheduled or listening once it settles.
import { abortReason } from '../abort.js';
import { type Clock, systemClock } from '../ports/clock.js';
import { LazyAbortController } from '../turn/lazy-abort-controller.js';
import { timeoutError } from './timeout-error.js';

/**
 * Runs `work` for at most `ms` on `clock`. The work gets its own signal, which aborts when the time
 * is up (so an HTTP call is cut; its reason is a `TimeoutError`) or `cancel` aborts (with its
 * reason). At the limit this rejects with `onTimeout()` right away, even when the work ignores
 * its signal: a call that never answers cannot hold its caller. When `cancel` aborts it rejects
 * with the abort reason instead (a cancellation is never a timeout).
 *
 * A job declared without a parameter (`() => chunks.next()`) is handed `cancel` itself and no
 * signal is made for it: an AbortSignal costs ≈ 5 µs to create on Node 20, and such a job has no
 * I/O to cut (mind that a rest or defaulted parameter also counts as none). See also
 * {@link runWithinLazily}.
 * @param clock - the harness clock (virtual in tests)
 * @param ms - the time allowed; `0` or less fails at once without starting the work
 * @param cancel - the caller's signal
 * @param onTimeout - the error to reject with at the limit (called at most once)
 * @param work - the job; it should pass its signal to all I/O
 * @returns the work's value
 * @throws `onTimeout()`, the work's own failure, or the abort reason of `cancel`
 */
export function runWithin<T>(clock: Clock, ms: number, cancel: AbortSignal, onTimeout: () => unknown, work: (signal: AbortSignal) => PromiseLike<T>): Promise<T> {
  return raceWithin(clock, ms, cancel, onTimeout, work.length > 0 ? (lazy) => work(lazy.signal) : () => work(cancel));
}

/** The signal of a job run by {@link runWithinLazily}: made the first time `signal` is read. */
export interface LazySignal {
  /** Aborts when the time is up (a `TimeoutError`) or the caller's signal aborts (its reason). */
  readonly signal: AbortSignal;
}

/**
 * {@link runWithin} for a job that may not need its signal at all: the job gets a holder whose
 * `signal` is made the first time it is read (an AbortSignal costs ≈ 5 µs on Node 20). A story
 * stage passes the holder's getter on as `ChatRequest.signal`, so a model that never looks at
 * the signal (a cached or instant answer) costs no signal, and one that passes it to `fetch`
 * gets the same signal as through `runWithin`. Read after the call settled, the signal is
 * already aborted if the call ended by its limit or cancellation.
 * @param clock - the harness clock (virtual in tests)
 * @param ms - the time allowed; `0` or less fails at once without starting the work
 * @param cancel - the caller's signal
 * @param onTimeout - the error to reject with at the limit (called at most once)
 * @param work - the job, given the holder of its signal
 * @returns the work's value
 * @throws `onTimeout()`, the work's own failure, or the abort reason of `cancel`
 */
export function runWithinLazily<T>(clock: Clock, ms: number, cancel: AbortSignal, onTimeout: () => unknown, work: (lazy: LazySignal) => PromiseLike<T>): Promise<T> {
  return raceWithin(clock, ms, cancel, onTimeout, work);
}

/**
 * A pending promise within `ms` on `clock`, following the turn's {@link LazyAbortController}
 * itself instead of an AbortSignal: the rules of {@link runWithin} (the turn's abort wins and
 * rejects with its reason, the limit rejects with `onTimeout()` at once even when the work ignores
 * it, nothing stays scheduled or following once it settles) for work that is already running and
 * has no signal of its own to cut — a hook handler's promise — so following the turn costs no
 * signal of the turn's and no listener.
 * @param clock - the harness clock
 * @param ms - the time allowed; `0` or less fails at once
 * @param turn - the turn's cancellation
 * @param onTimeout - the error to reject with at the limit (called at most once)
 * @param pending - the running work
 * @returns the work's value
 * @throws `onTimeout()`, the work's own failure, or the turn's abort reason
 */
export function raceTurnWithin<T>(clock: Clock, ms: number, turn: LazyAbortController, onTimeout: () => unknown, pending: PromiseLike<T>): Promise<T> {
  return raceWithin(clock, ms, turn, onTimeout, () => pending);
}

// The caller's cancellation: an AbortSignal (listened to), or the turn's LazyAbortController
// (followed without making its signal).
type Cancel = AbortSignal | LazyAbortController;

const reasonOf = (cancel: Cancel): unknown => (cancel instanceof LazyAbortController ? cancel.reason : abortReason(cancel));

function raceWithin<T>(clock: Clock, ms: number, cancel: Cancel, onTimeout: () => unknown, work: (lazy: LazySignal) => PromiseLike<T>): Promise<T> {
  if (cancel.aborted) return Promise.reject(reasonOf(cancel));
  if (ms <= 0) return Promise.reject(onTimeout());
  return new Promise<T>((resolve, reject) => {
    const lazy = new LazyWorkSignal(ms);
    let settled = false;
    // Ends the race once: the timer is cleared and the caller's cancellation is no longer followed.
    const finish = (): boolean => {
      if (settled) return false;
      settled = true;
      stopTimer();
      unfollow();
      return true;
    };
    const onCancel = () => {
      if (!finish()) return;
      const reason = reasonOf(cancel);
      lazy.abort(reason);
      reject(reason);
    };
    const onLimit = () => {
      if (!finish()) return;
      const error = timeoutError(onTimeout);
      lazy.abort(undefined);
      reject(error);
    };
    const stopTimer = startTimer(clock, ms, onLimit);
    const unfollow = follow(cancel, onCancel);
    let pending: PromiseLike<T>;
    try {
      pending = work(lazy);
    } catch (error) {
      if (finish()) reject(cancel.aborted ? reasonOf(cancel) : error);
      return;
    }
    Promise.resolve(pending).then(
      (value) => {
        if (finish()) resolve(value);
      },
      (error: unknown) => {
        if (finish()) reject(cancel.aborted ? reasonOf(cancel) : error);
      },
    );
  });
}

// Calls `onCancel` when `cancel` aborts; returns what stops following.
function follow(cancel: Cancel, onCancel: () => void): () => void {
  if (cancel instanceof LazyAbortController) return cancel.onAbort(onCancel);
  cancel.addEventListener('abort', onCancel);
  return () => cancel.removeEventListener('abort', onCancel);
}

/**
 * The work's signal, made on first read (the turn's {@link LazyAbortController} does the
 * remembering of an abort that came before the signal was made); at the limit it aborts with a
 * `TimeoutError`.
 */
export class LazyWorkSignal implements LazySignal {
  readonly #ms: number;
  readonly #controller = new LazyAbortController();

  /** @param ms - the limit, for the `TimeoutError`'s message */
  constructor(ms: number) {
    this.#ms = ms;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Aborts with `reason`, or with a `TimeoutError` when it is `undefined` (the limit). */
  abort(reason: unknown): void {
    this.#controller.abort(reason ?? new DOMException(`The time limit of ${this.#ms} ms passed`, 'TimeoutError'));
  }
}

/**
 * Calls `fire` after `ms` on `clock`; returns what cancels it. The system clock gets a plain
 * timer; another clock (a `ManualClock` in tests) its own `sleep`, cancelled by a signal.
 * @param clock - the harness clock
 * @param ms - the delay
 * @param fire - what runs when it is up
 * @returns what cancels it (safe to call more than once)
 */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock === systemClock) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  }
  const stop = new AbortController();
  clock.sleep(ms, stop.signal).then(fire, () => {});
  return () => stop.abort(STOPPED);
}

// A shared reason: aborting without one would build a DOMException on every settled call.
const STOPPED = Symbol('runWithin timer stopped');
