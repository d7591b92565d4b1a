import type { ChatRequest } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { modelStageBudget, stagePromptBudget } from '../src/budget/stage-budget.js';
import { fitStageMessages, fitStagePrompt } from '../src/budget/fit-prompt.js';
import { selectStoryWorkspace, storyPlugin } from '../src/index.js';
import { requestText, seedWorkspace, storyModel } from './helpers.js';

const SETTINGS = { contextTokens: 4096, responseTokens: 512 } as const;

// A history.md and a knowledge.md as the store writes them after `turns` settled turns: one
// settle-marker comment and the turn's bullets per turn. Turn 17 holds the only mention of the
// locket; every other turn is filler about the road.
function grownFiles(turns: number) {
  const history: string[] = [];
  const knowledge: string[] = ['LIA-SECRET the key is under the mat'];
  for (let turn = 1; turn <= turns; turn++) {
    const event = turn === 17 ? 'Bram hid the silver LOCKET inside the old well' : `Turn ${turn}: the party walked the muddy road and 大家在路上走了很久`;
    history.push(`<!-- troupe:settle story:t${turn} -->\n- ${event}\n- The rain went on (turn ${turn}).`);
    knowledge.push(`<!-- troupe:settle story:t${turn} -->\n- ${turn === 17 ? 'Lia saw Bram near the well with a LOCKET' : `Lia remembers step ${turn} of the road`}`);
  }
  return { 'history.md': `${history.join('\n\n')}\n`, 'characters/lia/knowledge.md': `${knowledge.join('\n\n')}\n` };
}

async function turnAfter(turns: number) {
  const trees = new MemoryTreeStore();
  const workspaces = await seedWorkspace(trees);
  const ws = await workspaces.read('tale');
  await workspaces.writeFiles('tale', ws.revision, grownFiles(turns));
  const model = storyModel();
  const test = await createTestHarness({ trees, model, plugins: [storyPlugin({ stagePrompt: SETTINGS })] });
  await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
  const before = (await test.sessionLog.read('s1')).length;
  await test.harness.runTurn({ sessionId: 's1', text: 'Where is the LOCKET now?', turnId: `t${turns + 1}` });
  const appended = (await test.sessionLog.read('s1')).slice(before);
  const stages = model.calls.filter((c) => c.meta.stage?.startsWith('story/'));
  await test.harness.close();
  return { stages, appendedBytes: appended.reduce((sum, event) => sum + JSON.stringify(event).length, 0), events: appended };
}

const stageText = (calls: readonly ChatRequest[], stage: string) => calls.filter((c) => c.meta.stage === stage).map(requestText);

describe('bounded stage prompts', () => {
  it('a 5 000-turn history never makes a stage prompt exceed its budget; history is a recent window plus retrieved older excerpts', async () => {
    const { stages } = await turnAfter(5000);
    const budget = stagePromptBudget(undefined, SETTINGS);
    expect(stages.length).toBeGreaterThanOrEqual(7);
    for (const call of stages) expect(budget.countMessages(call.messages), call.meta.stage).toBeLessThanOrEqual(budget.promptTokens);
    for (const stage of ['story/research', 'story/director']) {
      const [text] = stageText(stages, stage);
      expect(text, stage).toContain('The rain went on (turn 5000).'); // the recent window
      expect(text, stage).toContain('Bram hid the silver LOCKET inside the old well'); // retrieved from turn 17
      expect(text, stage).not.toContain('(turn 2500)'); // never whole
      expect(text, stage).not.toContain('troupe:settle');
    }
    const [lia] = stages.filter((c) => c.meta.stage === 'story/character' && requestText(c).includes('You play Lia')).map(requestText);
    expect(lia).toContain('Lia remembers step 5000 of the road');
    expect(lia).toContain('Lia saw Bram near the well with a LOCKET');
    expect(lia).not.toContain('step 2500 of');
    // Scopes unchanged: the character still sees no public history, the research no knowledge.
    expect(lia).not.toContain('The rain went on');
    expect(stageText(stages, 'story/research')[0]).not.toContain('Lia remembers');
  });

  it('the bytes a story turn appends to the session log stay flat as the history grows, from turn 10 on', async () => {
    // The recent window is full after a few turns (recentTurns), the older excerpts are few.
    const at10 = await turnAfter(10);
    const at1000 = await turnAfter(1000);
    const at5000 = await turnAfter(5000);
    expect(at1000.appendedBytes).toBeLessThanOrEqual(at10.appendedBytes * 1.2);
    expect(at5000.appendedBytes).toBeLessThanOrEqual(at10.appendedBytes * 1.2);
    expect(at5000.appendedBytes).toBeLessThanOrEqual(at1000.appendedBytes * 1.05);
    // ...while the whole history would be far bigger than a turn's events.
    expect(grownFiles(5000)['history.md'].length).toBeGreaterThan(at5000.appendedBytes * 5);
  });

  it('a stage whose fixed blocks alone exceed the budget is not sent: it degrades with STORY_STAGE_PROMPT_TOO_LARGE', async () => {
    const budget = stagePromptBudget(undefined, { contextTokens: 512, responseTokens: 128 });
    expect(() => fitStageMessages(budget, 'story/research', 'rules', [['Player input', 'word '.repeat(2000), 'fixed']])).toThrow(
      expect.objectContaining({ code: 'STORY_STAGE_PROMPT_TOO_LARGE' }),
    );
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const model = storyModel();
    const test = await createTestHarness({ trees, model, plugins: [storyPlugin({ stagePrompt: { contextTokens: 512, responseTokens: 128 } })] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    await test.harness.runTurn({ sessionId: 's1', text: `Tell me ${'everything '.repeat(600)}`, turnId: 't1' });
    const events = await test.sessionLog.read('s1');
    const degraded = events.filter((e) => e.type === 'agent-rp/story-degraded').map((e) => e.data as { stage: string; error: { code: string } });
    expect(degraded.find((d) => d.stage === 'story/research')?.error.code).toBe('STORY_STAGE_PROMPT_TOO_LARGE');
    const requests = events.filter((e) => e.type === 'agent-rp/story-stage-request').map((e) => (e.data as { stage: string }).stage);
    expect(requests).not.toContain('story/research');
    expect(model.calls.some((c) => c.meta.stage === 'story/research')).toBe(false);
    await test.harness.close();
  });

  it('a prompt short enough for the length bound is passed as built, the same as when counted, and a long one is still counted and fitted', () => {
    const budget = stagePromptBudget(undefined, { contextTokens: 1024, responseTokens: 256 });
    const { countMessagesAtMost: _bound, ...counting } = budget;
    const short: Parameters<typeof fitStageMessages>[3] = [
      ['Persona', '莉娅欠公会一笔钱。'.repeat(20), 'head'],
      ['Player input', 'Open the door.', 'fixed'],
    ];
    const bounded = fitStagePrompt(budget, 'story/character', 'rules', short);
    expect(bounded.messages).toEqual(fitStageMessages(counting, 'story/character', 'rules', short));
    expect(budget.countMessages(bounded.messages)).toBeLessThanOrEqual(bounded.tokens);
    expect(bounded.tokens).toBeLessThanOrEqual(budget.promptTokens);
    // Han text over the bound: counted, and clipped to the budget.
    const long: Parameters<typeof fitStageMessages>[3] = [
      ['Persona', '莉娅欠公会一笔钱。'.repeat(200), 'head'],
      ['Player input', 'Open the door.', 'fixed'],
    ];
    const fitted = fitStagePrompt(budget, 'story/character', 'rules', long);
    expect(fitted.messages).toEqual(fitStageMessages(counting, 'story/character', 'rules', long));
    expect(fitted.tokens).toBe(budget.countMessages(fitted.messages));
    expect(fitted.tokens).toBeLessThanOrEqual(budget.promptTokens);
    expect(fitted.messages[1]?.content.length).toBeLessThan(long[0]![1].length);
  });

  it('fitting shares the room: small blocks stay whole, large ones are clipped at the right end', () => {
    const budget = stagePromptBudget(undefined, { contextTokens: 1024, responseTokens: 256 });
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} of the long history`).join('\n');
    const messages = fitStageMessages(budget, 'story/research', 'rules', [
      ['Public history', long, 'tail'],
      ['Reference snippets', `FIRST ${'snippet text '.repeat(600)} LAST`, 'head'],
      ['Recent conversation', 'user: short and whole', 'tail'],
      ['Player input', 'Open the door.', 'fixed'],
    ]);
    expect(budget.countMessages(messages)).toBeLessThanOrEqual(budget.promptTokens);
    const user = messages[1]!.content;
    expect(user).toContain('user: short and whole');
    expect(user).toContain('Open the door.');
    expect(user).toContain('line 399 of the long history');
    expect(user).not.toContain('line 0 of the long history');
    expect(user).toContain('FIRST');
    expect(user).not.toContain('LAST');
  });
});

describe('a pipeline model’s stage budget', () => {
  it('is made once per model and settings, and again when the model’s tokenizer or window changes', () => {
    const model: { id: string; generate: () => Promise<{ text: string }>; tokenizer?: { id: string; exact: boolean; count: (text: string) => number }; capabilities?: { contextTokens: number } } = {
      id: 'counted',
      generate: async () => ({ text: '' }),
    };
    const first = modelStageBudget(model, SETTINGS);
    expect(modelStageBudget(model, SETTINGS)).toBe(first);
    expect(modelStageBudget(model, { ...SETTINGS })).not.toBe(first);

    model.tokenizer = { id: 'one-per-char', exact: true, count: (text) => text.length };
    const counted = modelStageBudget(model, SETTINGS);
    expect(counted.tokenizer).toBe('one-per-char');
    expect(counted.count('abcd')).toBe(4);

    model.capabilities = { contextTokens: 2048 };
    expect(modelStageBudget(model, {}).promptTokens).toBeLessThan(2048);
    expect(modelStageBudget(model, {}).promptTokens).toBe(stagePromptBudget(model, {}).promptTokens);
  });
});
