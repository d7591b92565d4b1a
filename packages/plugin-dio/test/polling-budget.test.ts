import { createHarness } from '@troupe/kernel';
import { ManualClock, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WAIT_BUDGET_MS, DioClient, DioError, dioPlugin } from '../src/index.js';
import { fakeTransport } from './helpers/fake-fetch.js';

const BASE = 'http://127.0.0.1:9';
const processing = (requestId: string) => ({ status: 200, json: { requestId, status: 'processing', promptChanged: false } });

/** Advances a manual clock in 1 s steps until `promise` settles (or `maxSteps`). */
async function driveUntilSettled(clock: ManualClock, promise: Promise<unknown>, maxSteps: number): Promise<number> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let steps = 0;
  while (!settled && steps < maxSteps) {
    await clock.advance(1_000);
    steps += 1;
  }
  return steps;
}

describe('waitForTerminal in virtual time', () => {
  it('polls once per second from t = 0, never more than one request in flight, and gives up at 16 minutes', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    const transport = fakeTransport(clock, () => processing('t1:dio'));
    const client = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock });
    const waiting = client.waitForTerminal('t1:dio').catch((error: unknown) => error);
    await driveUntilSettled(clock, waiting, 1_000);
    const error = await waiting;
    expect(DioError.isInstance(error) && error.code).toBe('DIO_WAIT_BUDGET_EXHAUSTED');
    expect(transport.started()).toBeLessThanOrEqual(961);
    expect(transport.started()).toBeGreaterThanOrEqual(960);
    expect(transport.maxInFlight()).toBe(1);
    expect(transport.times.map((at) => at - start)).toEqual(transport.times.map((_, index) => index * 1_000));
    expect(clock.now() - start).toBeGreaterThanOrEqual(DEFAULT_WAIT_BUDGET_MS);
    expect(clock.pendingTimers).toBe(0);
    // Nothing polls after the wait ended.
    const after = transport.started();
    await clock.advance(10_000);
    expect(transport.started()).toBe(after);
  });

  it('with answers slower than the interval: still one request in flight, every poll on the 1 s grid, missed ticks skipped (no burst)', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    // Every 7th poll takes 2.5 s (2.5 intervals): a timer-driven poller would overlap requests,
    // a naive "catch up" poller would fire a burst right after the slow answer.
    const slow = (index: number) => index % 7 === 3;
    const transport = fakeTransport(clock, () => processing('t5:dio'), { delayMs: (index) => (slow(index) ? 2_500 : 0) });
    const client = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock });
    const waiting = client.waitForTerminal('t5:dio').catch((error: unknown) => error);
    await driveUntilSettled(clock, waiting, 1_100);
    expect(DioError.isInstance(await waiting) && (await waiting as DioError).code).toBe('DIO_WAIT_BUDGET_EXHAUSTED');
    expect(transport.maxInFlight()).toBe(1);
    const offsets = transport.times.map((at) => at - start);
    expect(offsets.filter(slow).length).toBeGreaterThan(100);
    // Every poll starts on the grid, and no two polls share a grid point.
    expect(offsets.every((offset) => offset % 1_000 === 0)).toBe(true);
    // Each poll starts at the first grid point after the previous one that is not before its answer.
    for (let index = 1; index < offsets.length; index++) {
      const previousStart = offsets[index - 1] as number;
      const previousAnswer = (transport.answeredAt[index - 1] as number) - start;
      expect(offsets[index]).toBe(Math.max(previousStart + 1_000, Math.ceil(previousAnswer / 1_000) * 1_000));
    }
    expect(transport.started()).toBeLessThanOrEqual(961);
    expect(clock.pendingTimers).toBe(0);
  });

  it('honours a 429/503 Retry-After while polling: the next poll is the first grid point after it, and the wait still ends at the budget', async () => {
    const clock = new ManualClock();
    const start = clock.now();
    // Poll 1 is throttled for 5 s, poll 3 asks for an hour (far past the 16 min budget).
    const transport = fakeTransport(clock, (index) => {
      if (index === 1) return { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '5' } };
      if (index === 3) return { status: 503, json: { error: 'maintenance' }, headers: { 'retry-after': '3600' } };
      return processing('t9:dio');
    });
    const client = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock });
    const waiting = client.waitForTerminal('t9:dio').catch((error: unknown) => error);
    await driveUntilSettled(clock, waiting, 1_100);
    const error = await waiting;
    expect(DioError.isInstance(error) && error.code).toBe('DIO_WAIT_BUDGET_EXHAUSTED');
    expect(transport.times.map((at) => at - start)).toEqual([0, 1_000, 6_000, 7_000]);
    expect(clock.now() - start).toBeGreaterThanOrEqual(DEFAULT_WAIT_BUDGET_MS);
    expect(clock.now() - start).toBeLessThan(DEFAULT_WAIT_BUDGET_MS + 2_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it.each(['succeeded', 'failed', 'timed_out'] as const)('stops at the first %s status (within one tick)', async (status) => {
    const clock = new ManualClock();
    const transport = fakeTransport(
      clock,
      (index) => (index < 5 ? processing('t2:dio') : { status: 200, json: { requestId: 't2:dio', status, promptChanged: false, errorCode: status === 'succeeded' ? undefined : 'X' } }),
    );
    const client = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock });
    const waiting = client.waitForTerminal('t2:dio');
    await driveUntilSettled(clock, waiting, 100);
    const task = await waiting;
    expect(task.status).toBe(status);
    // A success without a prompt change is reported as such, not as a change.
    expect(task.promptChanged).toBe(false);
    expect(transport.started()).toBe(6);
    await clock.advance(5_000);
    expect(transport.started()).toBe(6);
    expect(clock.pendingTimers).toBe(0);
  });

  it('treats transient failures as missed polls and permanent ones as the end', async () => {
    const clock = new ManualClock();
    const transport = fakeTransport(
      clock,
      (index) => (index < 3 ? { status: 503, json: {} } : index < 5 ? processing('t3:dio') : { status: 400, json: { ok: false } }),
    );
    const client = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock });
    const waiting = client.waitForTerminal('t3:dio').catch((error: unknown) => error);
    await driveUntilSettled(clock, waiting, 100);
    const error = await waiting;
    expect((error as DioError).code).toBe('DIO_HTTP_PERMANENT');
    expect(transport.started()).toBe(6);
  });

  it('rejects a task answer for another request id', async () => {
    const clock = new ManualClock();
    const transport = fakeTransport(clock, () => processing('someone-else:dio'));
    const waiting = new DioClient(BASE, 5_000, { fetch: transport.fetch, clock }).waitForTerminal('t4:dio').catch((error: unknown) => error);
    await driveUntilSettled(clock, waiting, 10);
    expect(((await waiting) as DioError).code).toBe('DIO_IDENTITY_MISMATCH');
  });
});

describe('schedule_dio in a turn, with the wait in the background', () => {
  it('does not delay the reply, and writes exactly one dio/task-degraded event when the 16-minute budget runs out', async () => {
    const clock = new ManualClock();
    // Status polls are slower than the interval now and then (2.5 s), so overlapping requests
    // would be seen; the schedule and the lookup (requests 0 and 1) answer at once.
    const transport = fakeTransport(
      clock,
      (_index, url) =>
        url.endsWith('/v1/chat')
          ? {
              status: 202,
              json: { ok: true, accepted: true, conversationId: 'dio_s1', targetPromptId: 'lia', taskMessageId: 'turn-1:dio:assistant', requestId: 'turn-1:dio' },
            }
          : url.includes('/active-prompt')
            ? { status: 404, json: {} }
            : processing('turn-1:dio'),
      { delayMs: (index) => (index > 1 && index % 5 === 0 ? 2_500 : 0) },
    );
    const model = new ScriptedChatModel({
      byStage: { director: [{ text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] }, 'none'], actor: ['好的。'] },
    });
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: BASE, targetPromptId: 'lia', fetch: transport.fetch })],
      model,
      sessionLog,
      clock,
      scenario: { preActorDirector: true },
    });
    // The turn finishes without the clock moving: the reply never waits for the task.
    const result = await harness.runTurn({ sessionId: 's1', turnId: 'turn-1', text: '从现在起莉娅都用短句回答，少用比喻。', userId: 'user-1' });
    expect(result.reply).toBe('好的。');
    expect(result.events.map((event) => event.type)).toContain('dio/scheduled');
    expect(harness.backgroundTasks).toBe(1);
    for (let step = 0; step < 1_000 && harness.backgroundTasks > 0; step++) await clock.advance(1_000);
    expect(harness.backgroundTasks).toBe(0);
    const events = await sessionLog.read('s1');
    const taskEvents = events.filter((event) => event.type.startsWith('dio/task-'));
    expect(taskEvents.map((event) => event.type)).toEqual(['dio/task-degraded']);
    expect(taskEvents[0]?.data).toMatchObject({ code: 'DIO_WAIT_BUDGET_EXHAUSTED', requestId: 'turn-1:dio' });
    const polls = transport.times.length - 2; // minus the schedule and the lookup
    expect(polls).toBeLessThanOrEqual(961);
    expect(transport.maxInFlight()).toBe(1);
    const pollStarts = transport.times.slice(2).map((at) => at - (transport.times[2] as number));
    expect(pollStarts.every((offset) => offset % 1_000 === 0)).toBe(true);
    expect(new Set(pollStarts).size).toBe(pollStarts.length);
    expect(clock.pendingTimers).toBe(0);
    await harness.close();
  });
});
