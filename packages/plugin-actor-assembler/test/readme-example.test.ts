import { contextKeys, createHarness, definePlugin } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { type Preset, actorAssemblerPlugin, characterMacroFields, importCharacterCard } from '../src/index.js';
import { fixtureBytes } from './helpers.js';

describe('README smallest example', () => {
  it('runs as documented', async () => {
    const preset: Preset = {
      prompts: [
        { identifier: 'control', name: 'Control', role: 'system', content: 'Only write {{char}}’s lines and actions.' },
        { identifier: 'character', name: 'roleplay', role: 'system', content: '{{char}} keeps the lighthouse.' },
        { identifier: 'chatHistory', name: 'History', role: 'system', content: '', marker: 'chatHistory' },
        { identifier: 'userInput', name: 'Input', role: 'user', content: '', marker: 'userInput' },
      ],
    };
    const dio = definePlugin({
      name: 'dio-stub',
      version: '1.0.0',
      setup(ctx) {
        ctx.hooks.preActor((_input, turn) => turn.set(contextKeys.dioCompiledPrompt, 'You are Lia. Answer in short sentences.'));
      },
    });
    const harness = await createHarness({ plugins: [dio, actorAssemblerPlugin({ preset, char: 'Lia', user: 'Ming' })], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() });
    const { prepared } = await harness.runTurn({ sessionId: 'demo', text: 'Will the storm come tonight?' });
    expect(prepared.history.map((m) => `${m.role}: ${m.content}`)).toEqual([
      'system: Only write Lia’s lines and actions.',
      'system: You are Lia. Answer in short sentences.',
      'user: Will the storm come tonight?',
    ]);
    await harness.close();
  });

  it('an imported card plugs straight into the plugin options', async () => {
    const card = importCharacterCard(fixtureBytes('lia-v3.png'));
    const harness = await createHarness({
      plugins: [actorAssemblerPlugin({ preset: card.preset, char: card.character.displayName, user: '阿明', fields: characterMacroFields(card.character) })],
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
    });
    const { prepared } = await harness.runTurn({ sessionId: 'card', text: '你好' });
    // the card's own system prompt replaces the main prompt ({{original}} keeps its text), and its
    // post-history instructions come after the input: both on by default, as the V2 spec asks
    expect(prepared.history[0]?.content).toBe("You are 小莉. Write 小莉's next reply in a fictional chat between 小莉 and 阿明. Never break character.");
    expect(prepared.history.at(-2)).toEqual({ role: 'user', content: '你好' });
    expect(prepared.history.at(-1)?.role).toBe('system');
    await harness.close();
  });
});
