import { defineDirectorTool, type HookName, type PluginSetupContext } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rejectionOf, testPlugin } from './helpers.js';

const reason = new DOMException('player pressed stop', 'AbortError');

/** A plugin whose handler in `hook` aborts the turn, then waits like real I/O would. */
function abortIn(hook: HookName, controller: AbortController, degradable = false) {
  return testPlugin(`abort-in-${hook}`, (ctx: PluginSetupContext<unknown>) => {
    const handler = async (_value: unknown, turn: { signal: AbortSignal }) => {
      controller.abort(reason);
      await new Promise((resolve) => setTimeout(resolve, 5));
      turn.signal.throwIfAborted();
    };
    (ctx.hooks[hook] as (entry: unknown) => void)({ handler, degradable });
  });
}

describe('cancellation', () => {
  for (const hook of ['preActor', 'actorAssemble', 'review'] as const) {
    it(`rejects with the abort reason when aborted in ${hook}, committing and degrading nothing`, async () => {
      const controller = new AbortController();
      const { harness, sessionLog, model } = await createTestHarness({ plugins: [abortIn(hook, controller, true)] });
      const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: controller.signal }));
      expect(error).toBe(reason);
      expect(await sessionLog.read('s')).toEqual([]);
      if (hook !== 'review') expect(model.callsFor('actor')).toHaveLength(0);
    });
  }

  it('an abort after the commit no longer cancels the turn: postReview finishes and the turn resolves', async () => {
    const controller = new AbortController();
    const { harness, sessionLog } = await createTestHarness({ plugins: [abortIn('postReview', controller)] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: controller.signal });
    expect(controller.signal.aborted).toBe(true);
    expect(result.postReviewErrors).toEqual([]);
    expect((await sessionLog.read('s')).map((event) => event.type)).toEqual(['kernel/turn-committed', 'kernel/post-review-done']);
  });

  it('rejects when aborted while the actor streams, without a fallback reply', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const model = new ScriptedChatModel({ byStage: { actor: ['a long streamed reply that will be cut'] }, streamChunkSize: 4 });
    const { harness, sessionLog } = await createTestHarness({ model });
    const error = await rejectionOf(
      harness.runTurn(
        { sessionId: 's', text: 'hi' },
        {
          signal: controller.signal,
          onReplyDelta: (text) => {
            deltas.push(text);
            if (deltas.length === 2) controller.abort(reason);
          },
        },
      ),
    );
    expect(error).toBe(reason);
    expect(deltas).toEqual(['a lo', 'ng s']);
    expect(await sessionLog.read('s')).toEqual([]);
  });

  it('rejects when aborted during the director tool loop', async () => {
    const controller = new AbortController();
    const model = new ScriptedChatModel({
      byStage: {
        director: [
          () => {
            controller.abort(reason);
            return { text: '', toolCalls: [{ id: 'c1', name: 'note', arguments: {} }] };
          },
        ],
      },
    });
    let executed = 0;
    const plugin = testPlugin('tools', (ctx) => {
      ctx.registerTool(defineDirectorTool({ name: 'note', description: 'n', parameters: z.object({}), execute: async () => ++executed }));
    });
    const { harness, sessionLog } = await createTestHarness({ model, plugins: [plugin], scenario: { preActorDirector: true } });
    expect(await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: controller.signal }))).toBe(reason);
    expect(executed).toBe(0);
    expect(model.callsFor('actor')).toHaveLength(0);
    expect(await sessionLog.read('s')).toEqual([]);
  });

  it('aborts background tasks the turn started when the turn is aborted before commit', async () => {
    const controller = new AbortController();
    let taskSignal: AbortSignal | undefined;
    const plugin = testPlugin('poller', (ctx) => {
      ctx.hooks.preActor((_input, turn) => {
        turn.startBackground('poll', async (task) => {
          taskSignal = task.signal;
          await new Promise((_resolve, reject) => task.signal.addEventListener('abort', () => reject(task.signal.reason)));
        });
      });
      ctx.hooks.actorAssemble(async () => {
        controller.abort(reason);
      });
    });
    const { harness, sessionLog } = await createTestHarness({ plugins: [plugin] });
    expect(await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: controller.signal }))).toBe(reason);
    expect(taskSignal?.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(harness.backgroundTasks).toBe(0);
    expect(await sessionLog.read('s')).toEqual([]);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const { harness, model } = await createTestHarness();
    const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }, { signal: AbortSignal.abort(reason) }));
    expect(error).toBe(reason);
    expect(model.calls).toHaveLength(0);
  });
});
