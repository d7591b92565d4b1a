import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

describe('hook order', () => {
  it('runs pre, then unordered, then post handlers, keeping registration order in each group', async () => {
    const calls: string[] = [];
    const record = (label: string) => () => {
      calls.push(label);
    };
    const first = testPlugin('first', (ctx) => {
      ctx.hooks.preActor({ handler: record('first:post'), order: 'post' });
      ctx.hooks.preActor(record('first:normal'));
      ctx.hooks.preActor({ handler: record('first:pre'), order: 'pre' });
    });
    const second = testPlugin('second', (ctx) => {
      ctx.hooks.preActor({ handler: record('second:pre'), order: 'pre' });
      ctx.hooks.preActor({ handler: record('second:post'), order: 'post' });
      ctx.hooks.preActor(record('second:normal'));
    });
    const { harness } = await createTestHarness({ plugins: [first, second] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(calls).toEqual(['first:pre', 'second:pre', 'first:normal', 'second:normal', 'first:post', 'second:post']);
  });

  it('runs the hooks of one turn in lifecycle order', async () => {
    const calls: string[] = [];
    const plugin = testPlugin('lifecycle', (ctx) => {
      ctx.hooks.postReview(() => {
        calls.push('postReview');
      });
      ctx.hooks.review((reply) => {
        calls.push('review');
        return reply;
      });
      ctx.hooks.actorAssemble(() => {
        calls.push('actorAssemble');
      });
      ctx.hooks.preActor(() => {
        calls.push('preActor');
      });
    });
    const { harness, model } = await createTestHarness({ plugins: [plugin] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(calls).toEqual(['preActor', 'actorAssemble', 'review', 'postReview']);
    expect(model.callsFor('actor')).toHaveLength(1);
  });

  it('threads actorAssemble and review as waterfalls', async () => {
    const plugin = testPlugin('waterfall', (ctx) => {
      ctx.hooks.actorAssemble((prepared) => ({ history: [{ role: 'system', content: 'rules' }, ...prepared.history] }));
      ctx.hooks.actorAssemble({ handler: (prepared) => ({ history: [...prepared.history, { role: 'system', content: 'last word' }] }), order: 'post' });
      ctx.hooks.review((reply) => ({ text: `${reply.text}!` }));
      ctx.hooks.review(() => undefined);
      ctx.hooks.review((reply) => ({ text: reply.text.toUpperCase() }));
    });
    const { harness, model } = await createTestHarness({ plugins: [plugin] });
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(model.callsFor('actor')[0]?.messages.map((message) => message.content)).toEqual(['rules', 'hi', 'last word']);
    expect(result.reply).toBe('ECHO: HI!');
    expect(result.prepared.history).toHaveLength(3);
  });

  it('shares typed context values between plugins through kernel keys', async () => {
    const { contextKeys } = await import('@troupe/kernel');
    const writer = testPlugin('writer', (ctx) => {
      ctx.hooks.preActor((_input, turn) => turn.set(contextKeys.dioCompiledPrompt, 'compiled prompt'));
    });
    const seen: Array<string | undefined> = [];
    const reader = testPlugin('reader', (ctx) => {
      ctx.hooks.actorAssemble((_prepared, turn) => {
        seen.push(turn.get(contextKeys.dioCompiledPrompt), String(turn.has(contextKeys.storyDraft)));
      });
    });
    const { harness } = await createTestHarness({ plugins: [writer, reader] });
    await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(seen).toEqual(['compiled prompt', 'false']);
  });
});
