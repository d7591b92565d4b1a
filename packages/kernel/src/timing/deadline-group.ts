// Deadlines of many calls that share one caller signal and one clock (the stage calls of one
// story turn): the same race as `runWithinLazily`, but the group holds one timer, armed for the
// earliest pending limit, and one abort listener on the caller's signal for all of its calls. A
// turn makes about a dozen stage calls; with a timer and a listener each, every call paid a timer
// insert and removal and an `addEventListener`/`removeEventListener` pair on the path from a
// model answer to the next request. Calls mostly end long before their limit, so the timer armed
// by the first call usually stays untouched until `close()` clears it: no re-arming per call and
// no extra wake-up. The rules are those of `runWithin` (`test/timing.test.ts`): cancellation
// wins and rejects with the abort reason, each call's limit rejects at once even when its work
// ignores the signal, and nothing stays scheduled or listening once the group is closed and its
// calls have settled.
import { abortReason } from '../abort.js';
import type { Clock } from '../ports/clock.js';
import { type LazySignal, LazyWorkSignal, startTimer } from './run-within.js';
import { timeoutError } from './timeout-error.js';

// One call in flight: its limit on the clock and how to end it.
interface PendingCall {
  readonly due: number;
  readonly lazy: LazyWorkSignal;
  readonly onTimeout: () => unknown;
  readonly reject: (reason: unknown) => void;
}

/**
 * A group of deadline-bounded calls sharing one caller signal and one clock. Each call started
 * with {@link DeadlineGroup.runWithin} behaves like `runWithinLazily` (its own limit, its own
 * lazily made signal); the group keeps one timer and one listener on `cancel` for all of them.
 * Call {@link DeadlineGroup.close} when no more calls will start: the timer and the listener go
 * once the last call has settled.
 */
export class DeadlineGroup {
  readonly #clock: Clock;
  readonly #cancel: AbortSignal;
  readonly #live = new Set<PendingCall>();
  #listening = false;
  #stopTimer: (() => void) | undefined;
  // When the armed timer fires (Infinity: none armed).
  #armedFor = Infinity;
  #closed = false;
  #armings = 0;

  /**
   * @param clock - the harness clock (virtual in tests)
   * @param cancel - the caller's signal: aborting it rejects every pending call with its reason
   */
  constructor(clock: Clock, cancel: AbortSignal) {
    this.#clock = clock;
    this.#cancel = cancel;
  }

  /**
   * Runs `work` for at most `ms`, like `runWithinLazily`: the work gets the holder of a signal made
   * on first read, which aborts at the limit (a `TimeoutError`) or on cancellation (its reason).
   * @param ms - the time allowed; `0` or less fails at once without starting the work
   * @param onTimeout - the error to reject with at the limit (called at most once)
   * @param work - the job, given the holder of its signal
   * @returns the work's value
   * @throws `onTimeout()`, the work's own failure, or the abort reason of the caller's signal
   */
  runWithin<T>(ms: number, onTimeout: () => unknown, work: (lazy: LazySignal) => PromiseLike<T>): Promise<T> {
    const cancel = this.#cancel;
    if (cancel.aborted) return Promise.reject(abortReason(cancel));
    if (ms <= 0) return Promise.reject(onTimeout());
    return new Promise<T>((resolve, reject) => {
      const call: PendingCall = { due: this.#clock.now() + ms, lazy: new LazyWorkSignal(ms), onTimeout, reject };
      this.#start(call);
      let pending: PromiseLike<T>;
      try {
        pending = work(call.lazy);
      } catch (error) {
        if (this.#finish(call)) reject(cancel.aborted ? abortReason(cancel) : error);
        return;
      }
      Promise.resolve(pending).then(
        (value) => {
          if (this.#finish(call)) resolve(value);
        },
        (error: unknown) => {
          if (this.#finish(call)) reject(cancel.aborted ? abortReason(cancel) : error);
        },
      );
    });
  }

  /**
   * No more calls will start: the timer and the listener are released once the pending calls
   * (if any) have settled. Calling it again does nothing.
   */
  close(): void {
    this.#closed = true;
    if (this.#live.size === 0) this.#release();
  }

  #start(call: PendingCall): void {
    this.#live.add(call);
    if (!this.#listening) {
      this.#listening = true;
      this.#cancel.addEventListener('abort', this.#onCancel);
    }
    // Calls usually start in the order of their limits: only an earlier limit re-arms.
    if (call.due < this.#armedFor) this.#arm(call.due);
  }

  // Ends a call once (false when it had already ended).
  #finish(call: PendingCall): boolean {
    if (!this.#live.delete(call)) return false;
    if (this.#closed && this.#live.size === 0) this.#release();
    return true;
  }

  #arm(due: number): void {
    this.#stopTimer?.();
    this.#armedFor = due;
    // A virtual clock's sleep may have woken just before it was stopped: only the timer armed
    // last may fire.
    const armed = ++this.#armings;
    this.#stopTimer = startTimer(this.#clock, due - this.#clock.now(), () => {
      if (armed === this.#armings && this.#stopTimer !== undefined) this.#onTimer();
    });
  }

  #release(): void {
    this.#stopTimer?.();
    this.#stopTimer = undefined;
    this.#armedFor = Infinity;
    if (this.#listening) {
      this.#listening = false;
      this.#cancel.removeEventListener('abort', this.#onCancel);
    }
  }

  // The armed limit has come: every call due by then ends with its timeout error; the timer is
  // armed again for the earliest call still pending.
  #onTimer(): void {
    const reached = Math.max(this.#armedFor, this.#clock.now());
    this.#stopTimer = undefined;
    this.#armedFor = Infinity;
    let next = Infinity;
    for (const call of [...this.#live]) {
      if (call.due > reached) {
        if (call.due < next) next = call.due;
        continue;
      }
      if (!this.#finish(call)) continue;
      const error = timeoutError(call.onTimeout);
      call.lazy.abort(undefined);
      call.reject(error);
    }
    if (next !== Infinity && this.#live.size > 0) this.#arm(next);
  }

  readonly #onCancel = (): void => {
    const reason = abortReason(this.#cancel);
    const calls = [...this.#live];
    this.#live.clear();
    this.#release();
    for (const call of calls) {
      call.lazy.abort(reason);
      call.reject(reason);
    }
  };
}
