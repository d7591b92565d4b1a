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
});
