import { contextKeys, type PluginDefinition } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

// Stand-ins shaped like the real plugins: they talk only through kernel context keys.
const assembler = testPlugin('assembler', (ctx) => {
  ctx.hooks.actorAssemble((prepared, turn) => {
    const character = turn.get(contextKeys.dioCompiledPrompt) ?? 'You are Lia.';
    const draft = turn.get(contextKeys.storyDraft);
    const head = [{ role: 'system' as const, content: character }];
    const tail = draft ? [{ role: 'system' as const, content: draft.text }] : [];
    const history = prepared.history.slice(0, -1);
    const current = prepared.history.slice(-1);
    return { history: [...head, ...history, ...tail, ...current] };
  });
});
const dio = testPlugin('dio', (ctx) => {
  ctx.hooks.preActor({ degradable: true, handler: (_input, turn) => turn.set(contextKeys.dioCompiledPrompt, 'You are Lia. Answer in short sentences.') });
});
const story = testPlugin('story', (ctx) => {
  ctx.hooks.preActor((input, turn) => turn.set(contextKeys.storyDraft, { text: `## Scene\nThe fog lifts as ${input}`, workspaceId: 'harbor', revision: 1 }));
});

const all: Record<string, PluginDefinition> = { assembler, dio, story };
const subsets = [[], ['assembler'], ['dio'], ['story'], ['assembler', 'dio'], ['assembler', 'story'], ['dio', 'story'], ['assembler', 'dio', 'story']];

describe('plugin subsets', () => {
  it.each(subsets.map((names) => [names.join(' + ') || 'kernel alone', names]))('%s boots and runs a turn', async (_label, names) => {
    const plugins = (names as string[]).map((name) => all[name] as PluginDefinition);
    const { harness, model } = await createTestHarness({ plugins });
    const result = await harness.runTurn({ sessionId: 's', text: 'the bell rings' });
    expect(result.reply).toBe('echo: the bell rings');
    const sent = model.callsFor('actor')[0]?.messages.map((message) => message.content) ?? [];
    expect(sent[sent.length - 1]).toBe('the bell rings');
    const hasAssembler = (names as string[]).includes('assembler');
    expect(sent.includes('You are Lia. Answer in short sentences.')).toBe(hasAssembler && (names as string[]).includes('dio'));
    expect(sent.some((text) => text.startsWith('## Scene'))).toBe(hasAssembler && (names as string[]).includes('story'));
    await harness.close();
  });
});
