import { readFileSync } from 'node:fs';
import { foldCommittedTurns } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { actorAssemblerPlugin, importSillyTavernPreset } from '../src/index.js';
import { corpusPath } from './corpus.js';

// `harness.continueTurn` through the assembler: the preset's continue rules reach the actor's
// prompt (SillyTavern's continue_nudge_prompt / continue_prefill), and the committed step holds
// the kept reply with the continuation appended (kernel README, "continue").

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

const stDefault = importSillyTavernPreset(readFileSync(corpusPath('presets/p01-st-default.json'), 'utf8')).preset;

async function boot(preset = stDefault) {
  const model = new ScriptedChatModel({ byStage: { actor: ['她抬起头。', '“你来得正好。”'] } });
  const test = await createTestHarness({ model, plugins: [actorAssemblerPlugin({ preset, char: '莉娅', user: '阿明' })] });
  closers.push(() => test.harness.close());
  return test;
}

describe('continue through the actor assembler', () => {
  it('sends the preset’s continue nudge with the last reply and commits the reply with the preset’s continue_postfix and the continuation appended', async () => {
    const { harness, model, sessionLog } = await boot();
    const first = await harness.runTurn({ sessionId: 's', text: '莉娅？', turnId: 't1' });
    const continued = await harness.continueTurn({ sessionId: 's' });

    const [normal, continuing] = model.callsFor('actor');
    const nudge = stDefault.settings?.continueNudgePrompt ?? '';
    expect(nudge).toContain('{{lastChatMessage}}');
    // A normal turn has no nudge; the continue turn ends with it, naming the reply being extended.
    expect(normal?.messages.some((message) => message.content.includes('Continue the following message'))).toBe(false);
    const last = continuing?.messages.at(-1);
    expect(last?.role).toBe('system');
    expect(last?.content).toBe(nudge.replace('{{lastChatMessage}}', '她抬起头。'));
    // The player's line is history there, not a new input after the reply.
    const contents = continuing?.messages.map((message) => message.content) ?? [];
    expect(contents.filter((content) => content.includes('莉娅？'))).toHaveLength(1);
    // p01's continue_postfix is a space: it follows the reply being continued, in the prompt and the saved reply.
    expect(contents.indexOf('她抬起头。 ')).toBeGreaterThan(contents.findIndex((content) => content.includes('莉娅？')));

    expect(first.reply).toBe('她抬起头。');
    expect(continued).toMatchObject({ turnId: 't1', step: 1, reply: '她抬起头。 “你来得正好。”' });
    const turn = foldCommittedTurns(await sessionLog.read('s')).get('t1');
    expect(turn).toMatchObject({ step: 1, reply: '她抬起头。 “你来得正好。”', continuedFrom: 0 });
    expect(turn?.steps.map((step) => step.reply)).toEqual(['她抬起头。', '她抬起头。 “你来得正好。”']);
  });

  it('with continue_prefill the reply being extended is the last message, with the postfix', async () => {
    const prefill = { ...stDefault, settings: { ...stDefault.settings, continuePrefill: true, continuePostfix: ' ' } };
    // (the postfix is put on once, not once more for the prefill)
    const { harness, model } = await boot(prefill);
    await harness.runTurn({ sessionId: 's', text: '莉娅？', turnId: 't1' });
    expect((await harness.continueTurn({ sessionId: 's' })).reply).toBe('她抬起头。 “你来得正好。”');
    const last = model.callsFor('actor')[1]?.messages.at(-1);
    expect(last).toMatchObject({ role: 'assistant', content: '她抬起头。 ' });
    expect(model.callsFor('actor')[1]?.messages.some((message) => message.content.includes('Continue the following message'))).toBe(false);
  });

  it('a preset whose continue_postfix is empty (the Chinese preset p07) joins the continuation directly', async () => {
    const zh = importSillyTavernPreset(readFileSync(corpusPath('presets/p07-zh-mingyue-qiuqing.json'), 'utf8')).preset;
    const { harness } = await boot(zh);
    await harness.runTurn({ sessionId: 's', text: '莉娅？', turnId: 't1' });
    expect((await harness.continueTurn({ sessionId: 's' })).reply).toBe('她抬起头。“你来得正好。”');
  });
});
