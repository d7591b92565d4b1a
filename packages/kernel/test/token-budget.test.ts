import { type ChatModel, contextKeys, createHarness, DEFAULT_TOKEN_BUDGET, estimateTokenizer, type TurnTokenBudget } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { TokenCounters } from '../src/budget/token-counter.js';
import { testPlugin } from './helpers.js';

function budgetSpy() {
  const seen: TurnTokenBudget[] = [];
  const plugin = testPlugin('budget-spy', (ctx) => {
    ctx.hooks.preActor((_input, turn) => {
      const budget = turn.get(contextKeys.tokenBudget);
      if (budget) seen.push(budget);
    });
  });
  return { seen, plugin };
}

describe('the estimate tokenizer', () => {
  it('counts Chinese per character and English per word, and never zero for text', () => {
    const zh = estimateTokenizer.count('莉娅欠公会一笔钱，她不得不在雾港的码头上接下这份危险的委托。');
    const en = estimateTokenizer.count('Lia owes the guild money, so she takes a dangerous job on the foggy docks.');
    expect(zh).toBeGreaterThanOrEqual(28);
    expect(zh).toBeLessThanOrEqual(45);
    expect(en).toBeGreaterThanOrEqual(15);
    expect(en).toBeLessThanOrEqual(25);
    expect(estimateTokenizer.count('')).toBe(0);
    expect(estimateTokenizer.count('a')).toBe(1);
    expect(estimateTokenizer.count('😀😀')).toBe(4);
    expect(estimateTokenizer.count('x'.repeat(600))).toBe(100);
  });

  it('never counts more than maxTokensPerChar per code unit, on the costliest texts and on random mixes', () => {
    const worst = ['莉'.repeat(999), 'a1'.repeat(500), '!'.repeat(777), '\n'.repeat(9), '😀'.repeat(300), '𠀀'.repeat(301), 'é.'.repeat(400), '\udc00'.repeat(50), '\ud800'.repeat(50)];
    const units = ['莉', 'a', '1', ' ', '\n', '.', '😀', '𠀀', 'é', 'Ж', 'ア', '한', '\ud800', '\udc00', '—'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 400; n++) worst.push(Array.from({ length: 1 + Math.floor(random() * 300) }, () => units[Math.floor(random() * units.length)]).join(''));
    for (const text of worst) expect(estimateTokenizer.count(text)).toBeLessThanOrEqual(Math.ceil(text.length * estimateTokenizer.maxTokensPerChar));
    // The bound is tight: an all-Han text reaches it.
    expect(estimateTokenizer.count('莉'.repeat(1000))).toBe(Math.ceil(1000 * estimateTokenizer.maxTokensPerChar));
  });
});

describe('the per-turn token budget', () => {
  it('is in the context of every turn, with the defaults and the scenario’s settings merged field by field', async () => {
    const { seen, plugin } = budgetSpy();
    const harness = await createHarness({
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
      plugins: [plugin],
      scenario: { tokenBudget: { contextTokens: 32_768 } },
    });
    await harness.runTurn({ sessionId: 's', text: 'one' });
    await harness.runTurn({ sessionId: 's', text: 'two', scenario: { tokenBudget: { responseTokens: 512 } } });
    expect(seen[0]).toMatchObject({ contextTokens: 32_768, responseTokens: DEFAULT_TOKEN_BUDGET.responseTokens, worldInfoTokens: 8192, tokenizer: { id: 'estimate', exact: false } });
    expect(seen[1]).toMatchObject({ contextTokens: 32_768, responseTokens: 512, promptTokens: 32_256 });
    await harness.close();
  });

  it('takes the context size from the model’s capabilities.contextTokens when the chat sets none', async () => {
    const scripted = new ScriptedChatModel();
    const model: ChatModel = { id: 'windowed', capabilities: { contextTokens: 4096 }, generate: (request) => scripted.generate(request) };
    const { seen, plugin } = budgetSpy();
    const harness = await createHarness({ model, sessionLog: new MemorySessionLog(), plugins: [plugin] });
    await harness.runTurn({ sessionId: 's', text: 'one' });
    await harness.runTurn({ sessionId: 's', text: 'two', scenario: { tokenBudget: { contextTokens: 2048 } } });
    expect(seen.map((budget) => [budget.contextTokens, budget.responseTokens])).toEqual([
      [4096, 1024],
      [2048, 1024],
    ]);
    await harness.close();
  });

  it('sends a configured response length as the actor’s maxOutputTokens', async () => {
    const model = new ScriptedChatModel();
    const harness = await createHarness({ model, sessionLog: new MemorySessionLog() });
    await harness.runTurn({ sessionId: 's', text: 'one' });
    await harness.runTurn({ sessionId: 's', text: 'two', scenario: { tokenBudget: { responseTokens: 300 } } });
    expect(model.callsFor('actor').map((call) => call.maxOutputTokens)).toEqual([undefined, 300]);
    await harness.close();
  });

  it("passes the turn's actor sampling (a preset's temperature, top_p, penalties) to the actor's request, and to no other stage", async () => {
    const model = new ScriptedChatModel();
    const harness = await createHarness({ model, sessionLog: new MemorySessionLog() });
    const actorSampling = { temperature: 0.7, topP: 0.9, frequencyPenalty: 0.3, presencePenalty: -0.2 };
    const controller = new AbortController();
    await harness.runTurn({ sessionId: 's', text: 'one', scenario: { actorSampling, tokenBudget: { responseTokens: 345 } } }, { signal: controller.signal });
    const [call] = model.callsFor('actor');
    expect(call).toMatchObject({ ...actorSampling, maxOutputTokens: 345 });
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    await harness.runTurn({ sessionId: 's', text: 'two' });
    expect(model.callsFor('actor')[1]).not.toHaveProperty('topP');
    await expect(harness.runTurn({ sessionId: 's', text: 'x', scenario: { actorSampling: { topP: 3 } } })).rejects.toMatchObject({ code: 'KERNEL_TURN_INPUT_INVALID' });
    await harness.close();
  });

  it('rejects a budget that is not whole positive numbers with KERNEL_TURN_INPUT_INVALID', async () => {
    const harness = await createHarness({ model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() });
    await expect(harness.runTurn({ sessionId: 's', text: 'x', scenario: { tokenBudget: { contextTokens: -5 } } })).rejects.toMatchObject({ code: 'KERNEL_TURN_INPUT_INVALID' });
    await harness.close();
  });

  it('uses the model’s own tokenizer and learns a calibration from usage.inputTokens', async () => {
    const words: ChatModel['tokenizer'] = { id: 'words', exact: true, count: (text) => text.split(/\s+/).filter(Boolean).length };
    const scripted = new ScriptedChatModel({ fallback: (request) => ({ text: 'ok', usage: { inputTokens: 2 * new TokenCounters().forTurn({ id: 'x', tokenizer: words, generate: async () => ({ text: '' }) }, undefined, 0).countMessages(request.messages) } }) });
    const model: ChatModel = { id: scripted.id, tokenizer: words, generate: (request) => scripted.generate(request) };
    const { seen, plugin } = budgetSpy();
    const harness = await createHarness({ model, sessionLog: new MemorySessionLog(), plugins: [plugin] });
    await harness.runTurn({ sessionId: 's', text: 'one two three' });
    await harness.runTurn({ sessionId: 's', text: 'four' });
    expect(seen[0]?.tokenizer).toEqual({ id: 'words', exact: true });
    expect(seen[0]?.calibration).toBe(1);
    // The server counted twice what we did: halfway there after one report.
    expect(seen[1]?.calibration).toBeCloseTo(1.5, 5);
    expect(seen[1]?.countText('a b c d')).toBe(6);
    await harness.close();
  });

  it('does not learn from a server that counted far fewer tokens than were sent, and says so', async () => {
    const model = new ScriptedChatModel({ fallback: () => ({ text: 'ok', usage: { inputTokens: 10 } }) });
    const { seen, plugin } = budgetSpy();
    const harness = await createHarness({ model, sessionLog: new MemorySessionLog(), plugins: [plugin] });
    const long = '雾港的码头上没有人说话。'.repeat(200);
    const first = await harness.runTurn({ sessionId: 's', text: long });
    await harness.runTurn({ sessionId: 's', text: 'next' });
    expect(first.events.find((event) => event.type === 'kernel/prompt-truncation-suspected')?.data).toMatchObject({ reportedTokens: 10 });
    expect(seen[1]?.calibration).toBe(1);
    await harness.close();
  });
});

describe('the bounded history read', () => {
  it('hands a turn at most maxHistoryTurns earlier turns and reports how many messages it left out', async () => {
    const sessionLog = new MemorySessionLog();
    const events = Array.from({ length: 1500 }, (_, index) => ({
      turnId: `t${index}`,
      step: 0,
      type: 'kernel/turn-committed',
      ignorable: false,
      at: new Date(0).toISOString(),
      data: { input: `in ${index}`, reply: `out ${index}` },
    }));
    await sessionLog.append('long', events);
    const model = new ScriptedChatModel();
    const { seen, plugin } = budgetSpy();
    const harness = await createHarness({ model, sessionLog, plugins: [plugin], maxHistoryTurns: 10 });
    await harness.runTurn({ sessionId: 'long', text: 'now' });
    const sent = model.callsFor('actor')[0]!.messages;
    expect(sent).toHaveLength(21);
    expect(sent[0]).toEqual({ role: 'user', content: 'in 1490' });
    expect(sent.at(-2)).toEqual({ role: 'assistant', content: 'out 1499' });
    expect(seen[0]?.omittedHistoryMessages).toBe(2980);
    await harness.close();
    await expect(createHarness({ model, sessionLog, maxHistoryTurns: -1 })).rejects.toMatchObject({ code: 'KERNEL_HARNESS_INVALID' });
  });
});
