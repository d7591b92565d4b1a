import { type PluginDefinition, KernelError, contextKeys, definePlugin } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AssemblerError, DIO_APPLIED_EVENT, type PromptEntry, actorAssemblerPlugin, splitPreparedHistory } from '../src/index.js';
import { CHARACTER, COMPILED, CONTROL, prompt, seedPrompts } from './helpers.js';

/** A tiny upstream plugin that puts turn materials into the context, as the DIO / story plugins do. */
function materials(values: { compiled?: string; draft?: string; variables?: Record<string, string> }): PluginDefinition {
  return definePlugin({
    name: 'test-materials',
    version: '0.0.0',
    setup(ctx) {
      ctx.hooks.preActor((_input, turn) => {
        if (values.compiled !== undefined) turn.set(contextKeys.dioCompiledPrompt, values.compiled);
        if (values.draft !== undefined) turn.set(contextKeys.storyDraft, { text: values.draft, workspaceId: 'ws-1', revision: 3 });
        if (values.variables !== undefined) turn.set(contextKeys.templateVariables, values.variables);
      });
    },
  });
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function boot(prompts: PromptEntry[], upstream: { compiled?: string; draft?: string; variables?: Record<string, string> } = {}, overrides?: Record<string, string>) {
  const plugin = actorAssemblerPlugin({ preset: { prompts }, char: '莉娅', user: '阿明', ...(overrides !== undefined ? { overrides } : {}) });
  const test = await createTestHarness({ plugins: [materials(upstream), plugin] });
  closers.push(() => test.harness.close());
  return test;
}

describe('actorAssemblerPlugin in the kernel', () => {
  it('seed check: prepared.history has the DIO content, and control, history and question stay in order', async () => {
    const upstream: { compiled?: string } = {};
    const { harness, model } = await boot(seedPrompts(), upstream);
    await harness.runTurn({ sessionId: 's1', text: '你好，莉娅。' });
    await harness.runTurn({ sessionId: 's1', text: '灯塔冷吗？' });
    // the DIO plugin now has a verified compiled prompt for the next turn
    upstream.compiled = COMPILED;
    const result = await harness.runTurn({ sessionId: 's1', text: '今晚会有风暴吗？' });
    const contents = result.prepared.history.map((m) => m.content);
    expect(contents).toEqual([CONTROL, COMPILED, '你好，莉娅。', 'echo: 你好，莉娅。', '灯塔冷吗？', 'echo: 灯塔冷吗？', '今晚会有风暴吗？']);
    expect(result.prepared.history.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'user', 'assistant', 'user']);
    // the old character text is gone from the slot, not kept or appended elsewhere
    expect(contents.some((c) => c.includes(CHARACTER))).toBe(false);
    // what the actor model really received
    const actorCalls = model.callsFor('actor');
    expect(actorCalls).toHaveLength(3);
    expect(actorCalls[2]?.messages).toEqual(result.prepared.history);
    expect(actorCalls[0]?.messages.map((m) => m.content)).toEqual([CONTROL, CHARACTER, '你好，莉娅。']);
    expect(result.events.some((e) => e.type === DIO_APPLIED_EVENT && (e.data as { rule: string }).rule === 'roleplay')).toBe(true);
  });

  it('without a compiled prompt nothing is replaced', async () => {
    const { harness } = await boot(seedPrompts());
    const result = await harness.runTurn({ sessionId: 's2', text: '问题' });
    expect(result.prepared.history.map((m) => m.content)).toEqual([CONTROL, CHARACTER, '问题']);
    expect(result.events.some((e) => e.type === DIO_APPLIED_EVENT)).toBe(false);
  });

  it.each([
    ['DIO_DUPLICATE_ROLEPLAY', [...seedPrompts(), prompt('again', 'x', { name: 'roleplay' })]],
    ['DIO_NO_SLOT', seedPrompts(prompt('plain', 'plain text'))],
    ['DIO_AMBIGUOUS_PLACEHOLDER', [...seedPrompts(prompt('a', '{{getvar::systemPrompt}}')), prompt('b', '{{getvar::systemPrompt}}')]],
    ['DIO_SLOT_OVERRIDDEN', seedPrompts(), { character: '{{original}}' }],
  ])('%s fails the turn (KERNEL_HOOK_FAILED, not degraded) and the actor is never called', async (code, prompts, overrides?: Record<string, string>) => {
    const { harness, model, sessionLog } = await boot(prompts as PromptEntry[], { compiled: COMPILED }, overrides);
    const failure = await harness.runTurn({ sessionId: 's3', text: '问题' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(KernelError.isInstance(failure)).toBe(true);
    const kernelError = failure as KernelError;
    expect(kernelError.code).toBe('KERNEL_HOOK_FAILED');
    expect(kernelError.plugin).toBe('@troupe/plugin-actor-assembler');
    expect(AssemblerError.isInstance(kernelError.cause)).toBe(true);
    expect((kernelError.cause as AssemblerError).code).toBe(code);
    expect(model.callsFor('actor')).toHaveLength(0);
    const events = await sessionLog.read('s3');
    expect(events.some((e) => e.type === 'kernel/hook-degraded')).toBe(false);
  });

  it('places the story draft from the context and uses template variables', async () => {
    const prompts = seedPrompts(prompt('character', '{{getvar::systemPrompt}}｜{{char}}和{{user}}', { name: 'roleplay' }));
    const { harness } = await boot(prompts, { draft: '## 莉娅\n「关窗。」', variables: { systemPrompt: '灯塔看守人' } });
    const result = await harness.runTurn({ sessionId: 's4', text: '然后？' });
    const history = result.prepared.history;
    expect(history[1]?.content).toBe('灯塔看守人｜莉娅和阿明');
    expect(history.at(-2)?.role).toBe('system');
    expect(history.at(-2)?.content).toContain('## 莉娅\n「关窗。」');
    expect(history.at(-1)).toEqual({ role: 'user', content: '然后？' });
  });

  it('an invalid preset fails at boot, not mid-turn', async () => {
    const failure = await createTestHarness({ plugins: [actorAssemblerPlugin({ preset: { prompts: [prompt('a', 'A')] } })] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(KernelError.isInstance(failure)).toBe(true);
    expect((failure as KernelError).code).toBe('KERNEL_PLUGIN_CONFIG_INVALID');
  });

  it('cancellation rejects with the abort reason and is not degraded', async () => {
    const { harness, model } = await boot(seedPrompts());
    const controller = new AbortController();
    const reason = new Error('player left');
    controller.abort(reason);
    await expect(harness.runTurn({ sessionId: 's5', text: 'q' }, { signal: controller.signal })).rejects.toBe(reason);
    expect(model.calls).toHaveLength(0);
  });
});

describe('splitPreparedHistory', () => {
  it('splits off the current input only when it is the last user message', () => {
    const history = [{ role: 'user' as const, content: 'a' }];
    expect(splitPreparedHistory([...history, { role: 'user', content: 'q' }], 'q')).toEqual({ history, input: 'q' });
    expect(splitPreparedHistory([...history, { role: 'assistant', content: 'q' }], 'q').history).toHaveLength(2);
  });
});

