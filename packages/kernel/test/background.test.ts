import { createTestHarness, ManualClock } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { deferred, testPlugin } from './helpers.js';

/** A plugin that starts a polling task on every turn; the task records a result event. */
function poller(polls: { count: number }) {
  return testPlugin('poller', (ctx) => {
    ctx.hooks.preActor((_input, turn) => {
      turn.startBackground('poll', async (task) => {
        for (let attempt = 1; attempt <= 3; attempt++) {
          await task.clock.sleep(1_000, task.signal);
          polls.count += 1;
        }
        await task.appendEvents([{ type: 'poller/done', data: { polls: 3 }, key: task.turnId }]);
      });
    });
  });
}

describe('background tasks', () => {
  it('outlive the turn and land their results as session events', async () => {
    const clock = new ManualClock();
    const polls = { count: 0 };
    const { harness, sessionLog } = await createTestHarness({ plugins: [poller(polls)], clock });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' });
    expect(result.reply).toBe('echo: hi');
    expect(harness.backgroundTasks).toBe(1);
    await clock.advance(3_000);
    expect(polls.count).toBe(3);
    expect(harness.backgroundTasks).toBe(0);
    const done = await sessionLog.findLatest('s', { type: 'poller/done', key: 't1' });
    expect(done).toMatchObject({ turnId: 't1', step: 0, ignorable: true, data: { polls: 3 } });
  });

  it('are aborted by close(), leaving no timer and recording nothing', async () => {
    const clock = new ManualClock();
    const polls = { count: 0 };
    const { harness, sessionLog } = await createTestHarness({ plugins: [poller(polls)], clock });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    await clock.advance(1_000);
    await harness.close();
    expect(polls.count).toBe(1);
    expect(clock.pendingTimers).toBe(0);
    expect(harness.backgroundTasks).toBe(0);
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['kernel/turn-committed']);
  });

  it('are drained by close({mode: "drain"})', async () => {
    const clock = new ManualClock();
    const polls = { count: 0 };
    const { harness, sessionLog } = await createTestHarness({ plugins: [poller(polls)], clock });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    const closing = harness.close({ mode: 'drain' });
    await clock.advance(3_000);
    await closing;
    expect(polls.count).toBe(3);
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['kernel/turn-committed', 'poller/done']);
  });

  it('are interrupted by close() even when they ignore their signal; what they append later is dropped', async () => {
    const gate = deferred();
    let sawAbort: unknown;
    const stubborn = testPlugin('stubborn', (ctx) => {
      ctx.hooks.preActor((_input, turn) => {
        turn.startBackground('ignore-signal', async (task) => {
          await gate.promise;
          sawAbort = task.signal.reason;
          await task.appendEvents([{ type: 'stubborn/late', data: {} }]);
        });
      });
    });
    const { harness, sessionLog } = await createTestHarness({ plugins: [stubborn] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(harness.backgroundTasks).toBe(1);
    await harness.close();
    expect(harness.backgroundTasks).toBe(0);
    gate.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect((sawAbort as DOMException).message).toBe('The harness was closed');
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['kernel/turn-committed']);
  });

  it('close({mode: "drain", timeoutMs}) waits that long, then interrupts what is still running', async () => {
    const stuck = testPlugin('stuck', (ctx) => {
      ctx.hooks.preActor((_input, turn) => {
        turn.startBackground('never-ends', () => new Promise<void>(() => {}));
      });
    });
    const { harness } = await createTestHarness({ plugins: [stuck] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    await harness.close({ mode: 'drain', timeoutMs: 20 });
    expect(harness.backgroundTasks).toBe(0);
  });

  it('record a failure event when a task throws', async () => {
    const plugin = testPlugin('flaky', (ctx) => {
      ctx.hooks.postReview((_turn, turn) => {
        turn.startBackground('explode', async () => {
          throw new Error('service said no');
        });
      });
    });
    const { harness, sessionLog } = await createTestHarness({ plugins: [plugin] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    await harness.close({ mode: 'drain' });
    const failed = (await sessionLog.read('s')).find((event) => event.type === 'kernel/background-failed');
    expect(failed?.data).toMatchObject({ task: 'explode', plugin: 'flaky', error: { message: 'service said no' } });
  });

  it('runs plugin close callbacks after tasks end, in reverse order', async () => {
    const order: string[] = [];
    const gate = deferred();
    const first = testPlugin('first', (ctx) => {
      ctx.onClose(() => {
        order.push('first');
      });
      ctx.hooks.preActor((_input, turn) => {
        turn.startBackground('wait', async () => {
          await gate.promise;
          order.push('task');
        });
      });
    });
    const second = testPlugin('second', (ctx) => ctx.onClose(() => void order.push('second')));
    const { harness } = await createTestHarness({ plugins: [first, second] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    const closing = harness.close({ mode: 'drain' });
    gate.resolve();
    await closing;
    expect(order).toEqual(['task', 'second', 'first']);
  });
});
