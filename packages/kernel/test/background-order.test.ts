import { createTestHarness, ManualClock, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPlugin } from './helpers.js';

/** A plugin whose background task reports at once (a task faster than the turn). */
const fastTask = testPlugin('fast-task', (ctx) => {
  ctx.hooks.preActor((_input, turn) => {
    turn.events.append('fast/scheduled', {});
    // Ignores its signal on purpose: a careless task must not leave stray events either.
    turn.startBackground('report', (task) => task.appendEvents([{ type: 'fast/terminal', data: { ok: true } }]));
  });
});

describe('background results are ordered after their turn', () => {
  it('a task faster than a slow actor lands after the turn commit', async () => {
    const clock = new ManualClock();
    const slowActor = async (request: { signal: AbortSignal }) => {
      await clock.sleep(2_500, request.signal);
      return 'slow reply';
    };
    const model = new ScriptedChatModel({ byStage: { actor: [slowActor] } });
    const { harness, sessionLog } = await createTestHarness({ clock, model, plugins: [fastTask] });
    const turn = harness.runTurn({ sessionId: 's', text: 'hi' });
    await clock.advance(2_500);
    await turn;
    await harness.close({ mode: 'drain' });
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['fast/scheduled', 'kernel/turn-committed', 'fast/terminal']);
  });

  it('a task of a failed turn lands after the failure record', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: [() => Promise.reject(new Error('actor down'))] } });
    const { harness, sessionLog } = await createTestHarness({ model, plugins: [fastTask] });
    await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }));
    await harness.close({ mode: 'drain' });
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['fast/scheduled', 'kernel/turn-failed', 'fast/terminal']);
  });

  it('an aborted turn leaves no stray background event', async () => {
    const controller = new AbortController();
    const model = new ScriptedChatModel({
      byStage: {
        actor: [
          (request) => {
            controller.abort(new Error('player cancelled'));
            return Promise.reject(request.signal.reason);
          },
        ],
      },
    });
    const { harness, sessionLog } = await createTestHarness({ model, plugins: [fastTask] });
    await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: controller.signal }));
    await harness.close({ mode: 'drain' });
    expect(await sessionLog.read('s')).toEqual([]);
  });
});
