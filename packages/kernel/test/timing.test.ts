import { getEventListeners } from 'node:events';
import { ManualClock } from '@troupe/kernel/testing';
import { DeadlineGroup, type LazySignal, pollOnGrid, retryWithDelays, runWithin, runWithinLazily } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers.js';

// Deadlines, retries and polling on the harness clock (Effect inside): virtual time, cancellation
// wins, nothing left scheduled afterwards.

/** Advances the clock in `stepMs` steps until `promise` settles (at most `maxSteps`). */
async function drive(clock: ManualClock, promise: Promise<unknown>, stepMs: number, maxSteps = 10_000): Promise<void> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  promise.then(done, done);
  for (let step = 0; !settled && step < maxSteps; step++) await clock.advance(stepMs);
}

const timeoutError = () => new Error('too slow');

describe('runWithin', () => {
  it('returns the value of work that finishes in time and leaves no timer', async () => {
    const clock = new ManualClock();
    const result = runWithin(clock, 1_000, new AbortController().signal, timeoutError, async () => 'done');
    await drive(clock, result, 10);
    expect(await result).toBe('done');
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects with onTimeout() at the limit even when the work ignores its signal, and aborts the work signal', async () => {
    const clock = new ManualClock();
    let workSignal: AbortSignal | undefined;
    const result = runWithin(clock, 500, new AbortController().signal, timeoutError, (signal) => {
      workSignal = signal;
      return new Promise<never>(() => {});
    });
    const rejected = rejectionOf(result);
    await clock.advance(499);
    expect(workSignal?.aborted).toBe(false);
    await clock.advance(1);
    expect(((await rejected) as Error).message).toBe('too slow');
    expect(workSignal?.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a cancellation rejects with its own reason, never as a timeout', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const reason = new DOMException('player pressed stop', 'AbortError');
    const rejected = rejectionOf(runWithin(clock, 500, controller.signal, timeoutError, () => new Promise<never>(() => {})));
    await clock.advance(100);
    controller.abort(reason);
    expect(await rejected).toBe(reason);
    expect(clock.pendingTimers).toBe(0);
    expect(await rejectionOf(runWithin(clock, 500, controller.signal, timeoutError, async () => 1))).toBe(reason);
  });

  it('passes the work failure through and fails at once for a zero budget', async () => {
    const clock = new ManualClock();
    const failure = new Error('model down');
    expect(await rejectionOf(runWithin(clock, 500, new AbortController().signal, timeoutError, () => Promise.reject(failure)))).toBe(failure);
    let started = false;
    const zero = runWithin(clock, 0, new AbortController().signal, timeoutError, async () => {
      started = true;
    });
    expect(((await rejectionOf(zero)) as Error).message).toBe('too slow');
    expect(started).toBe(false);
  });

  it('tells the work why its signal aborted, and leaves no listener on the caller signal', async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    const signals: AbortSignal[] = [];
    const hang = (signal: AbortSignal) => {
      signals.push(signal);
      return new Promise<never>(() => {});
    };
    const limited = rejectionOf(runWithin(clock, 100, caller.signal, timeoutError, hang));
    await clock.advance(100);
    await limited;
    expect((signals[0] as AbortSignal).reason.name).toBe('TimeoutError');
    expect(await runWithin(clock, 100, caller.signal, timeoutError, async () => 'ok')).toBe('ok');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    const reason = new Error('stop');
    const cancelled = rejectionOf(runWithin(clock, 100, caller.signal, timeoutError, hang));
    caller.abort(reason);
    expect(await cancelled).toBe(reason);
    expect(signals[1]?.reason).toBe(reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a work function that throws before returning a promise rejects with that error', async () => {
    const clock = new ManualClock();
    const failure = new Error('bad request');
    const thrown = runWithin(clock, 100, new AbortController().signal, timeoutError, () => {
      throw failure;
    });
    expect(await rejectionOf(thrown)).toBe(failure);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('runWithinLazily', () => {
  it('makes the signal when read: read early it aborts at the limit, read late it is already aborted, and cancel gives its reason', async () => {
    const clock = new ManualClock();
    const holders: LazySignal[] = [];
    const hang = (lazy: LazySignal) => {
      holders.push(lazy);
      return new Promise<never>(() => {});
    };
    const early = rejectionOf(runWithinLazily(clock, 100, new AbortController().signal, timeoutError, (lazy) => {
      const { signal } = lazy;
      expect(signal.aborted).toBe(false);
      return hang(lazy);
    }));
    const late = rejectionOf(runWithinLazily(clock, 100, new AbortController().signal, timeoutError, hang));
    await clock.advance(100);
    expect(((await early) as Error).message).toBe('too slow');
    expect(((await late) as Error).message).toBe('too slow');
    expect(holders.map((lazy) => (lazy.signal.reason as DOMException).name)).toEqual(['TimeoutError', 'TimeoutError']);
    const caller = new AbortController();
    const reason = new Error('stop');
    const cancelled = rejectionOf(runWithinLazily(clock, 100, caller.signal, timeoutError, hang));
    caller.abort(reason);
    expect(await cancelled).toBe(reason);
    expect(holders[2]?.signal.reason).toBe(reason);
    expect(await runWithinLazily(clock, 100, caller.signal, timeoutError, async () => 'unused').catch((error: unknown) => error)).toBe(reason);
    expect(await runWithinLazily(clock, 100, new AbortController().signal, timeoutError, async () => 'ok')).toBe('ok');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('DeadlineGroup', () => {
  const hang = () => new Promise<never>(() => {});
  // A job that keeps its signal holder and never answers.
  const holding = (holders: LazySignal[]) => (lazy: LazySignal) => {
    holders.push(lazy);
    return hang();
  };

  it("cuts each call at its own limit (a later call's earlier limit too), returns the others' values, and leaves one timer and one listener while open", async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    const group = new DeadlineGroup(clock, caller.signal);
    const holders: LazySignal[] = [];
    const late = rejectionOf(group.runWithin(300, () => new Error('late at 300'), holding(holders)));
    const early = rejectionOf(group.runWithin(100, () => new Error('early at 100'), holding(holders)));
    let answer: (value: string) => void = () => {};
    const answered = group.runWithin(200, () => new Error('never'), () => new Promise<string>((resolve) => (answer = resolve)));
    expect(clock.pendingTimers).toBe(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    await clock.advance(99);
    expect(holders.map((lazy) => lazy.signal.aborted)).toEqual([false, false]);
    await clock.advance(1);
    expect(((await early) as Error).message).toBe('early at 100');
    expect(((holders[1] as LazySignal).signal.reason as DOMException).name).toBe('TimeoutError');
    expect(holders[0]?.signal.aborted).toBe(false);
    answer('in time');
    expect(await answered).toBe('in time');
    await clock.advance(199);
    expect(holders[0]?.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(((await late) as Error).message).toBe('late at 300');
    expect(await group.runWithin(100, timeoutError, async () => 'ok')).toBe('ok');
    expect(clock.pendingTimers).toBe(1);
    group.close();
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a cancellation rejects every pending call with its reason and aborts their signals; later calls reject at once; nothing is left', async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    const group = new DeadlineGroup(clock, caller.signal);
    const holders: LazySignal[] = [];
    const calls = [100, 200].map((ms) => rejectionOf(group.runWithin(ms, timeoutError, holding(holders))));
    const { signal } = holders[0] as LazySignal;
    await clock.advance(50);
    const reason = new Error('player cancelled');
    caller.abort(reason);
    expect(await Promise.all(calls)).toEqual([reason, reason]);
    expect(signal.reason).toBe(reason);
    expect(holders[1]?.signal.reason).toBe(reason);
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    let started = false;
    expect(await rejectionOf(group.runWithin(100, timeoutError, async () => (started = true)))).toBe(reason);
    expect(started).toBe(false);
    group.close();
  });

  it('closed with a call pending, it keeps that call bounded and releases its timer and listener when it settles; a throwing job and a zero limit fail at once', async () => {
    const clock = new ManualClock();
    const caller = new AbortController();
    const group = new DeadlineGroup(clock, caller.signal);
    const pending = rejectionOf(group.runWithin(100, timeoutError, hang));
    const failure = new Error('bad request');
    expect(
      await rejectionOf(
        group.runWithin(100, timeoutError, () => {
          throw failure;
        }),
      ),
    ).toBe(failure);
    expect(((await rejectionOf(group.runWithin(0, timeoutError, async () => 1))) as Error).message).toBe('too slow');
    group.close();
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(100);
    expect(((await pending) as Error).message).toBe('too slow');
    expect(clock.pendingTimers).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});

describe('retryWithDelays', () => {
  it('waits the decided pause on the clock between attempts and returns the first success', async () => {
    const clock = new ManualClock();
    const startedAt: number[] = [];
    const result = retryWithDelays({
      clock,
      attempt: async (retry) => {
        startedAt.push(clock.now());
        if (retry < 3) throw new Error(`failure ${retry}`);
        return retry;
      },
      delayBeforeRetry: (_error, retry) => 100 * 2 ** retry,
    });
    await drive(clock, result, 50);
    expect(await result).toBe(3);
    const start = startedAt[0] as number;
    expect(startedAt.map((at) => at - start)).toEqual([0, 100, 300, 700]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('gives up with the last failure, or with what the decision threw', async () => {
    const clock = new ManualClock();
    let attempts = 0;
    const last = retryWithDelays({
      clock,
      attempt: async (retry) => {
        attempts += 1;
        throw new Error(`failure ${retry}`);
      },
      delayBeforeRetry: (_error, retry) => (retry < 2 ? 10 : undefined),
    });
    const lastRejected = rejectionOf(last);
    await drive(clock, last, 10);
    expect(((await lastRejected) as Error).message).toBe('failure 2');
    expect(attempts).toBe(3);
    const replaced = new Error('the server asks for 10 minutes');
    const refused = retryWithDelays({
      clock,
      attempt: () => Promise.reject(new Error('429')),
      delayBeforeRetry: () => {
        throw replaced;
      },
    });
    expect(await rejectionOf(refused)).toBe(replaced);
  });

  it('an abort during the pause rejects with the abort reason at once and leaves no timer', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    let attempts = 0;
    const result = retryWithDelays({
      clock,
      signal: controller.signal,
      attempt: async () => {
        attempts += 1;
        throw new Error('503');
      },
      delayBeforeRetry: () => 60_000,
    });
    const rejected = rejectionOf(result);
    await clock.advance(1_000);
    expect(clock.pendingTimers).toBe(1);
    controller.abort(new DOMException('closed', 'AbortError'));
    expect(((await rejected) as DOMException).message).toBe('closed');
    expect(attempts).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('pollOnGrid', () => {
  it('polls on the grid from t = 0, skipping missed grid points after a slow answer, one poll in flight', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const startedAt: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const result = pollOnGrid<string>({
      clock,
      intervalMs: 1_000,
      budgetMs: 60_000,
      poll: async () => {
        startedAt.push(clock.now() - start);
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // The third poll takes 2.5 intervals.
        if (startedAt.length === 3) await clock.sleep(2_500);
        inFlight -= 1;
        return startedAt.length === 6 ? { done: true, value: 'ready' } : { done: false };
      },
    });
    await drive(clock, result, 250);
    expect(await result).toEqual({ done: true, value: 'ready', polls: 6 });
    expect(startedAt).toEqual([0, 1_000, 2_000, 5_000, 6_000, 7_000]);
    expect(maxInFlight).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it("waits at least a poll's notBeforeMs (a Retry-After) before the next poll, on the grid and never past the budget", async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const startedAt: number[] = [];
    const result = pollOnGrid<string>({
      clock,
      intervalMs: 1_000,
      budgetMs: 10_000,
      poll: async () => {
        startedAt.push(clock.now() - start);
        // The second poll is told to come back in 3.2 s, the fourth in an hour (cut at the budget).
        if (startedAt.length === 2) return { done: false, notBeforeMs: 3_200 };
        if (startedAt.length === 4) return { done: false, notBeforeMs: 3_600_000 };
        return { done: false };
      },
    });
    await drive(clock, result, 250);
    expect(await result).toEqual({ done: false, polls: 4 });
    expect(startedAt).toEqual([0, 1_000, 5_000, 6_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('stops when the budget is spent (never more than budget / interval + 1 polls) and when a poll throws', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const startedAt: number[] = [];
    const spent = pollOnGrid({
      clock,
      intervalMs: 1_000,
      budgetMs: 10_000,
      poll: async () => {
        startedAt.push(clock.now() - start);
        return { done: false };
      },
    });
    await drive(clock, spent, 1_000);
    expect(await spent).toEqual({ done: false, polls: 10 });
    expect(startedAt).toEqual(Array.from({ length: 10 }, (_, index) => index * 1_000));
    expect(clock.now() - start).toBeGreaterThanOrEqual(10_000);
    const permanent = new Error('404');
    expect(await rejectionOf(pollOnGrid({ clock, intervalMs: 1_000, budgetMs: 10_000, poll: () => Promise.reject(permanent) }))).toBe(permanent);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an abort between polls rejects with the abort reason and polls no more', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    let polls = 0;
    const result = pollOnGrid({
      clock,
      signal: controller.signal,
      intervalMs: 1_000,
      budgetMs: 60_000,
      poll: async () => {
        polls += 1;
        return { done: false };
      },
    });
    const rejected = rejectionOf(result);
    await clock.advance(2_500);
    controller.abort(new DOMException('turn aborted', 'AbortError'));
    expect(((await rejected) as DOMException).message).toBe('turn aborted');
    await clock.advance(5_000);
    expect(polls).toBe(3);
    expect(clock.pendingTimers).toBe(0);
  });
});
