import { definePlugin } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type ActorProfile, actorAssemblerPlugin, actorProfileKey } from '../src/index.js';
import { prompt } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

/** An app plugin that sets the turn's actor profile from the session, as a character library would. */
function profiles(bySession: Record<string, ActorProfile>) {
  return definePlugin({
    name: 'test-profiles',
    version: '0.0.0',
    setup(ctx) {
      ctx.hooks.preActor({ order: 'pre', handler: (_input, turn) => {
        const profile = bySession[turn.sessionId];
        if (profile) turn.set(actorProfileKey, profile);
      } });
    },
  });
}

const bootPreset = { prompts: [prompt('main', 'I am {{char}}, talking to {{user}}.'), prompt('chatHistory', '', { marker: 'chatHistory' as const })] };

describe('actorProfileKey', () => {
  it('replaces the preset, names and fields per turn, and falls back to the options otherwise', async () => {
    const chatPreset = { prompts: [prompt('main', '{{char}} speaks to {{user}}. {{description}} / {{persona}}'), prompt('chatHistory', '', { marker: 'chatHistory' as const })] };
    const { harness } = await createTestHarness({
      plugins: [
        profiles({ seraphina: { preset: chatPreset, char: 'Seraphina', user: 'Ash', fields: { description: 'A forest guardian.', persona: 'A lost traveler.' } } }),
        actorAssemblerPlugin({ preset: bootPreset, char: 'Lia', user: 'Traveler' }),
      ],
    });
    closers.push(() => harness.close());
    const chat = await harness.runTurn({ sessionId: 'seraphina', text: 'hello' });
    expect(chat.prepared.history[0]?.content).toBe('Seraphina speaks to Ash. A forest guardian. / A lost traveler.');
    const plain = await harness.runTurn({ sessionId: 'other', text: 'hello' });
    expect(plain.prepared.history[0]?.content).toBe('I am Lia, talking to Traveler.');
  });

  it('fails the turn when the profile carries an invalid preset', async () => {
    const { harness } = await createTestHarness({
      plugins: [profiles({ bad: { preset: { prompts: [] } } }), actorAssemblerPlugin({ preset: bootPreset })],
    });
    closers.push(() => harness.close());
    await expect(harness.runTurn({ sessionId: 'bad', text: 'hello' })).rejects.toMatchObject({ cause: { code: 'PRESET_INVALID' } });
  });

  it("places the profile's greeting as the chat's first message: after new_chat_prompt, before the turns, counted by depth injections", async () => {
    const chatPreset = {
      prompts: [prompt('main', 'MAIN'), prompt('chatHistory', '', { marker: 'chatHistory' as const }), prompt('note', 'NOTE@2', { injectionDepth: 2 })],
      settings: { newChatPrompt: '[Start a new Chat]' },
    };
    const { harness } = await createTestHarness({
      plugins: [profiles({ chat: { preset: chatPreset, greeting: '*The lamp is lit.* Welcome.' } }), actorAssemblerPlugin({ preset: bootPreset })],
    });
    closers.push(() => harness.close());
    const first = await harness.runTurn({ sessionId: 'chat', text: 'hello' });
    // Two messages from the newest, the depth-2 note goes before the greeting: it is chat history.
    expect(first.prepared.history).toEqual([
      { role: 'system', content: 'MAIN' },
      { role: 'system', content: '[Start a new Chat]' },
      { role: 'system', content: 'NOTE@2' },
      { role: 'assistant', content: '*The lamp is lit.* Welcome.' },
      { role: 'user', content: 'hello' },
    ]);
    const second = await harness.runTurn({ sessionId: 'chat', text: 'again' });
    expect(second.prepared.history.map((message) => message.content)).toEqual(['MAIN', '[Start a new Chat]', '*The lamp is lit.* Welcome.', 'hello', 'NOTE@2', first.reply, 'again']);
  });

  it('leaves the greeting out once the kernel hands out only the latest turns of a long chat', async () => {
    const { harness } = await createTestHarness({
      maxHistoryTurns: 1,
      plugins: [profiles({ chat: { preset: bootPreset, greeting: 'GREETING' } }), actorAssemblerPlugin({ preset: bootPreset })],
    });
    closers.push(() => harness.close());
    expect((await harness.runTurn({ sessionId: 'chat', text: 'one' })).prepared.history.map((message) => message.content)).toContain('GREETING');
    expect((await harness.runTurn({ sessionId: 'chat', text: 'two' })).prepared.history.map((message) => message.content)).toContain('GREETING');
    // Three turns in, the history read starts at the second: the chat's start is not in it.
    expect((await harness.runTurn({ sessionId: 'chat', text: 'three' })).prepared.history.map((message) => message.content)).not.toContain('GREETING');
  });

  it('fails the turn when the profile carries a greeting that is not text', async () => {
    const { harness } = await createTestHarness({
      plugins: [profiles({ bad: { greeting: 42 as unknown as string } }), actorAssemblerPlugin({ preset: bootPreset })],
    });
    closers.push(() => harness.close());
    await expect(harness.runTurn({ sessionId: 'bad', text: 'hello' })).rejects.toMatchObject({ cause: { code: 'ASSEMBLE_INPUT_INVALID' } });
  });
});
