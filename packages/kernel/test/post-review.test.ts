import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

describe('postReview isolation', () => {
  it('reports failures as events and on the result while the turn succeeds', async () => {
    const seen: string[] = [];
    const failing = testPlugin('continuity', (ctx) => {
      ctx.hooks.postReview(() => {
        throw new Error('write-back failed');
      });
    });
    const healthy = testPlugin('metrics', (ctx) => {
      ctx.hooks.postReview((turn, turnCtx) => {
        seen.push(turn.reply);
        turnCtx.events.append('metrics/recorded', { length: turn.reply.length });
      });
    });
    const { harness, sessionLog } = await createTestHarness({ plugins: [failing, healthy] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(result.reply).toBe('echo: hi');
    expect(seen).toEqual(['echo: hi']);
    expect(result.postReviewErrors).toHaveLength(1);
    expect(result.postReviewErrors[0]).toMatchObject({ code: 'KERNEL_HOOK_FAILED', plugin: 'continuity', hook: 'postReview' });
    const types = (await sessionLog.read('s')).map((event) => event.type);
    expect(types).toEqual(['kernel/turn-committed', 'metrics/recorded', 'kernel/post-review-failed', 'kernel/post-review-done']);
    expect(result.events.map((event) => event.type)).toEqual(types);
  });

  it('gives postReview handlers the committed turn', async () => {
    let committedId: string | undefined;
    const plugin = testPlugin('reader', (ctx) => {
      ctx.hooks.postReview((turn) => {
        committedId = turn.commitEvent.id;
        expect(turn.commitEvent.type).toBe('kernel/turn-committed');
        expect(turn.input).toBe('hi');
      });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi', turnId: 'turn-1' });
    expect(committedId).toBe(result.events[0]?.id);
  });

  it('runs postReview handlers concurrently', async () => {
    let running = 0;
    let peak = 0;
    const slow = (name: string) =>
      testPlugin(name, (ctx) => {
        ctx.hooks.postReview(async () => {
          running += 1;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 10));
          running -= 1;
        });
      });
    const { harness } = await createTestHarness({ plugins: [slow('a'), slow('b'), slow('c')] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(peak).toBe(3);
  });
});
