import { createTestHarness, ManualClock, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ASSEMBLY_WARNINGS_EVENT, type GlobalVariableStore, type PromptEntry, UNKNOWN_MACROS_EVENT, actorAssemblerPlugin, memoryGlobalVariableStore } from '../src/index.js';
import { prompt } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

const HISTORY_MARKER = prompt('chatHistory', '', { marker: 'chatHistory' });

async function boot(prompts: PromptEntry[], extra: Parameters<typeof actorAssemblerPlugin>[0] = {}, clock?: ManualClock) {
  const test = await createTestHarness({ plugins: [actorAssemblerPlugin({ preset: { prompts }, char: '莉娅', user: '阿明', ...extra })], ...(clock !== undefined ? { clock } : {}) });
  closers.push(() => test.harness.close());
  return test;
}

describe('the plugin and the macro engine', () => {
  it('reports each unknown macro once per turn in an event; known ones never', async () => {
    const { harness, sessionLog } = await boot([prompt('a', '{{wander}} {{wander::x}} {{lumiaOOC}} {{char}}'), prompt('b', '{{WANDER}}'), HISTORY_MARKER]);
    await harness.runTurn({ sessionId: 's', text: '你好' });
    await harness.runTurn({ sessionId: 's', text: '再见' });
    const events = (await sessionLog.read('s')).filter((event) => event.type === UNKNOWN_MACROS_EVENT);
    expect(events.map((event) => event.data)).toEqual([{ names: ['wander', 'lumiaOOC'] }, { names: ['wander', 'lumiaOOC'] }]);
  });

  it('global variables persist per user through the store; local ones last one turn', async () => {
    const store = memoryGlobalVariableStore();
    const { harness, model } = await boot([prompt('count', 'visits={{incglobalvar::visits}} local={{incvar::n}}'), HISTORY_MARKER], { globalVariables: store });
    await harness.runTurn({ sessionId: 's', text: '1', userId: 'ming' });
    await harness.runTurn({ sessionId: 's', text: '2', userId: 'ming' });
    await harness.runTurn({ sessionId: 't', text: '3', userId: 'hai' });
    const firstPrompts = model.callsFor('actor').map((call) => call.messages[0]?.content);
    expect(firstPrompts).toEqual(['visits=1 local=1', 'visits=2 local=1', 'visits=1 local=1']);
    expect(await store.load('ming', new AbortController().signal)).toEqual({ visits: '2' });
    expect(await store.load('hai', new AbortController().signal)).toEqual({ visits: '1' });
  });

  it('a failing global store fails the turn (nothing silently forgotten)', async () => {
    const broken: GlobalVariableStore = {
      load: async () => ({}),
      save: async () => {
        throw new Error('disk full');
      },
    };
    const { harness } = await boot([prompt('g', '{{setglobalvar::x::1}}hi'), HISTORY_MARKER], { globalVariables: broken });
    await expect(harness.runTurn({ sessionId: 's', text: 'q' })).rejects.toMatchObject({ code: 'KERNEL_HOOK_FAILED' });
  });

  it('random and roll replay identically for the same turn id; pick is stable across turns of one chat', async () => {
    const options = Array.from({ length: 40 }, (_, i) => `o${i}`).join('::');
    const prompts = [prompt('r', `{{random::${options}}}|{{roll::1d1000}}|{{pick::${options}}}`), HISTORY_MARKER];
    const a = await boot(prompts);
    const b = await boot(prompts);
    await a.harness.runTurn({ sessionId: 's', text: 'q', turnId: 'turn-1' });
    await b.harness.runTurn({ sessionId: 's', text: 'q', turnId: 'turn-1' });
    await a.harness.runTurn({ sessionId: 's', text: 'q', turnId: 'turn-2' });
    const [first, replay] = [a.model.callsFor('actor')[0], b.model.callsFor('actor')[0]].map((call) => call?.messages[0]?.content);
    expect(replay).toBe(first);
    const second = a.model.callsFor('actor')[1]?.messages[0]?.content ?? '';
    expect(second.split('|')[2]).toBe(first?.split('|')[2]);
  });

  it('time macros read the kernel clock', async () => {
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 15, 4, 5));
    const { harness, model } = await boot([prompt('t', '{{isodate}} {{isotime}} {{weekday}}'), HISTORY_MARKER], { timeZone: 'UTC' }, clock);
    await harness.runTurn({ sessionId: 's', text: 'q' });
    expect(model.callsFor('actor')[0]?.messages[0]?.content).toBe('2026-12-01 15:04 Tuesday');
  });

  it('card prompts, depth prompt and model reach the prompt; warnings go to an event', async () => {
    const { harness, model, sessionLog } = await boot(
      [prompt('main', 'MAIN'), prompt('m', '{{model}} {{roll::nonsense}}'), HISTORY_MARKER, prompt('jailbreak', 'PHI')],
      { cardPrompts: { systemPrompt: 'CARD {{original}}', postHistoryInstructions: 'CARD PHI' }, depthPrompt: { prompt: 'DEPTH', depth: 0, role: 'system' }, model: 'deepseek-chat' },
    );
    await harness.runTurn({ sessionId: 's', text: 'q' });
    expect(model.callsFor('actor')[0]?.messages.map((m) => m.content)).toEqual(['CARD MAIN', 'deepseek-chat ', 'q', 'DEPTH', 'CARD PHI']);
    const warnings = (await sessionLog.read('s')).filter((event) => event.type === ASSEMBLY_WARNINGS_EVENT);
    expect(warnings).toHaveLength(1);
  });

  it('{{model}} names the actor model when the config does not', async () => {
    const named = await createTestHarness({
      plugins: [actorAssemblerPlugin({ preset: { prompts: [prompt('m', 'model={{model}}'), HISTORY_MARKER] } })],
      model: new ScriptedChatModel({ id: 'openai-compatible:qwen2.5' }),
    });
    closers.push(() => named.harness.close());
    await named.harness.runTurn({ sessionId: 's', text: 'q' });
    expect(named.model.callsFor('actor')[0]?.messages[0]?.content).toBe('model=qwen2.5');
  });

  it('useCardPrompts: false keeps the preset prompts', async () => {
    const { harness, model } = await boot([prompt('main', 'MAIN'), HISTORY_MARKER], { cardPrompts: { systemPrompt: 'CARD' }, useCardPrompts: false });
    await harness.runTurn({ sessionId: 's', text: 'q' });
    expect(model.callsFor('actor')[0]?.messages[0]?.content).toBe('MAIN');
  });

  it('rejects an unknown time zone at boot', async () => {
    await expect(boot([HISTORY_MARKER], { timeZone: 'Mars/Olympus' })).rejects.toMatchObject({ code: 'KERNEL_PLUGIN_CONFIG_INVALID' });
  });
});
