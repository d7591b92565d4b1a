import { type ChatMessage, contextKeys, createHarness, definePlugin, estimateTokenizer, KernelError, type TurnTokenBudget } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { actorAssemblerPlugin, CONTEXT_TRIMMED_EVENT, type ContextTrimmedData, fitHistoryToBudget, selectWithinBudget } from '../src/index.js';
import { COMPILED, CONTROL, committedTurns, seedPrompts } from './helpers.js';

/** The same count the kernel's estimate budget uses (calibration 1: the scripted model reports no usage). */
function promptTokens(messages: readonly ChatMessage[]): number {
  return 3 + messages.reduce((sum, message) => sum + estimateTokenizer.count(message.content) + 4, 0);
}

/** Sets the DIO compiled prompt and a story draft, as the DIO and story plugins would. */
const materials = (draft: string) =>
  definePlugin({
    name: 'materials',
    version: '1.0.0',
    kernel: '^0.1.0',
    setup(ctx) {
      ctx.hooks.preActor((_input, turn) => {
        turn.set(contextKeys.dioCompiledPrompt, COMPILED);
        turn.set(contextKeys.storyDraft, { text: draft, workspaceId: 'ws', revision: 1 });
      });
    },
  });

describe('the context budget', () => {
  it('a 10 000-turn session: the next actor request fits the budget and the event lists what was dropped', async () => {
    const sessionLog = new MemorySessionLog();
    await sessionLog.append('long', committedTurns(10_000));
    const model = new ScriptedChatModel();
    const harness = await createHarness({ model, sessionLog, plugins: [actorAssemblerPlugin({ preset: { prompts: seedPrompts() } })] });
    const result = await harness.runTurn({ sessionId: 'long', text: '现在呢？' });
    const sent = model.callsFor('actor')[0]!.messages;
    expect(promptTokens(sent)).toBeLessThanOrEqual(8192 - 1024);
    expect(JSON.stringify(sent).length).toBeLessThan(60_000);
    // Fixed prompts and the input stay; the newest history is what is kept.
    expect(sent[0]).toEqual({ role: 'system', content: CONTROL });
    expect(sent.at(-1)).toEqual({ role: 'user', content: '现在呢？' });
    expect(sent.at(-2)?.content).toContain('第9999次回答');
    const event = result.events.find((candidate) => candidate.type === CONTEXT_TRIMMED_EVENT);
    expect(event?.ignorable).toBe(true);
    const data = event?.data as ContextTrimmedData;
    expect(data.budget).toEqual({ contextTokens: 8192, responseTokens: 1024, promptTokens: 7168 });
    expect(data.history.received).toBe(2000);
    expect(data.history.notRead).toBe(18_000);
    expect(data.history.kept + data.history.dropped).toBe(2000);
    expect(data.history.kept).toBe(sent.length - 3);
    expect(data.history.droppedRange).toMatchObject({ from: 0, to: data.history.dropped - 1, oldest: { role: 'user', start: '第9000轮：莉娅，今晚雾港的码头上有船靠岸吗？' } });
    expect(data.tokens.prompt).toBe(promptTokens(sent));
    await harness.close();
  });

  it('never drops the fixed prompts, the DIO slot, the story draft or the input; drops the oldest history first', async () => {
    const sessionLog = new MemorySessionLog();
    await sessionLog.append('s', committedTurns(200));
    const model = new ScriptedChatModel();
    const draft = '## 本轮\n莉娅点亮灯塔，看见一艘没有旗帜的船。'.repeat(20);
    const harness = await createHarness({
      model,
      sessionLog,
      scenario: { tokenBudget: { contextTokens: 2048, responseTokens: 256 } },
      plugins: [materials(draft), actorAssemblerPlugin({ preset: { prompts: seedPrompts() } })],
    });
    const result = await harness.runTurn({ sessionId: 's', text: '那艘船是谁的？' });
    const sent = model.callsFor('actor')[0]!.messages;
    const contents = sent.map((message) => message.content);
    expect(contents[0]).toBe(CONTROL);
    expect(contents[1]).toBe(COMPILED);
    expect(contents.some((content) => content.includes(draft))).toBe(true);
    expect(contents.at(-1)).toBe('那艘船是谁的？');
    expect(promptTokens(sent)).toBeLessThanOrEqual(2048 - 256);
    const data = result.events.find((event) => event.type === CONTEXT_TRIMMED_EVENT)?.data as ContextTrimmedData;
    expect(data.history.dropped).toBeGreaterThan(0);
    expect(data.history.kept).toBeGreaterThan(0);
    // What is kept is the newest history, in order, right before the draft and the input.
    const keptHistory = sent.slice(2, 2 + data.history.kept);
    expect(keptHistory.at(-1)?.content).toContain('第199次回答');
    expect(keptHistory[0]?.role).toBe(data.history.dropped % 2 === 0 ? 'user' : 'assistant');
    await harness.close();
  });

  it('a prompt that cannot fit even without history fails with BUDGET_PROMPT_TOO_LONG before the actor is called', async () => {
    const model = new ScriptedChatModel();
    const harness = await createHarness({
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { tokenBudget: { contextTokens: 512, responseTokens: 128 } },
      plugins: [materials('很长的故事草稿。'.repeat(200)), actorAssemblerPlugin({ preset: { prompts: seedPrompts() } })],
    });
    const error = await harness.runTurn({ sessionId: 's', text: '你好' }).catch((caught: unknown) => caught);
    expect(KernelError.isInstance(error)).toBe(true);
    const cause = (error as KernelError).cause as { code: string; message: string; details: Record<string, unknown> };
    expect(cause.code).toBe('BUDGET_PROMPT_TOO_LONG');
    expect(cause.message).toContain('384');
    expect(cause.details).toMatchObject({ budgetTokens: 384, contextTokens: 512 });
    expect(model.callsFor('actor')).toHaveLength(0);
    await harness.close();
  });

  it('places the whole history and queues no event when it fits', async () => {
    const sessionLog = new MemorySessionLog();
    await sessionLog.append('s', committedTurns(3));
    const model = new ScriptedChatModel();
    const harness = await createHarness({ model, sessionLog, plugins: [actorAssemblerPlugin({ preset: { prompts: seedPrompts() } })] });
    const result = await harness.runTurn({ sessionId: 's', text: '嗯' });
    expect(model.callsFor('actor')[0]!.messages).toHaveLength(2 + 6 + 1);
    expect(result.events.some((event) => event.type === CONTEXT_TRIMMED_EVENT)).toBe(false);
    await harness.close();
  });
});

describe('fitHistoryToBudget and selectWithinBudget', () => {
  const budget = (promptTokens: number): TurnTokenBudget => ({
    contextTokens: promptTokens + 100,
    responseTokens: 100,
    promptTokens,
    worldInfoTokens: 0,
    omittedHistoryMessages: 0,
    tokenizer: { id: 'chars', exact: true },
    calibration: 1,
    countText: (text) => text.length,
    countMessage: (message) => message.content.length,
    countMessages: (messages) => messages.reduce((sum, message) => sum + message.content.length, 0),
  });
  const history: ChatMessage[] = Array.from({ length: 10 }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `m${index}`.padEnd(10, '.') }));

  it('re-measures when the assembly grows with the history (a macro reading it) and drops one more', () => {
    // A summary line whose length grows with the number of history messages placed.
    const assembleWith = (placed: readonly ChatMessage[]) => [{ role: 'system' as const, content: 'x'.repeat(10 + placed.length * 3) }, ...placed];
    const fit = fitHistoryToBudget(history, assembleWith, (messages) => messages, budget(70));
    // 10 fixed leave 60: six messages fit by count, but then the summary is 28 long → 88; five → 75; four → 62.
    expect(fit.kept).toBe(4);
    expect(fit.dropped).toBe(6);
    expect(fit.promptTokens).toBeLessThanOrEqual(70);
    expect(fit.result.slice(1)).toEqual(history.slice(6));
  });

  it('keeps world-info-like items in priority order within their own budget', () => {
    const entries = [
      { id: 'harbor', text: 'x'.repeat(40) },
      { id: 'guild', text: 'x'.repeat(70) },
      { id: 'fog', text: 'x'.repeat(20) },
    ];
    const { kept, dropped, tokens } = selectWithinBudget(entries, (entry) => entry.text.length, 100);
    expect(kept.map((entry) => entry.id)).toEqual(['harbor', 'fog']);
    expect(dropped.map((entry) => entry.id)).toEqual(['guild']);
    expect(tokens).toBe(60);
  });
});
