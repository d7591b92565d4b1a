import { contextKeys, createHarness, definePlugin } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { actorAssemblerPlugin, DIO_DROPPED_EVENT } from '../src/index.js';
import { CONTROL, seedPrompts } from './helpers.js';

// The player's turn must never fail because of DIO: a compiled prompt that does not fit the chat's
// context is left out for that turn (the normal character prompt plays), with a visible event.

const compiledOf = (characters: number) => `你是莉娅。${'长'.repeat(characters)}`;
const dio = (compiled: string) =>
  definePlugin({
    name: 'dio-stand-in',
    version: '1.0.0',
    kernel: '^0.1.0',
    setup(ctx) {
      ctx.hooks.preActor((_input, turn) => {
        turn.set(contextKeys.dioCompiledPrompt, compiled);
      });
    },
  });

describe('a DIO compiled prompt larger than the context', () => {
  it('plays the turn with the normal character prompt and queues actor-assembler/dio-dropped', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['嗯。'] } });
    const prompts = seedPrompts();
    const harness = await createHarness({
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { tokenBudget: { contextTokens: 4096, responseTokens: 512 } },
      plugins: [dio(compiledOf(20_000)), actorAssemblerPlugin({ preset: { prompts } })],
    });
    const result = await harness.runTurn({ sessionId: 's', text: '今晚会有风暴吗？' });
    expect(result.reply).toBe('嗯。');
    const sent = model.callsFor('actor')[0]!.messages.map((message) => message.content);
    expect(sent[0]).toBe(CONTROL);
    expect(sent.join('\n')).not.toContain('长长长长');
    expect(sent.at(-1)).toBe('今晚会有风暴吗？');
    const dropped = result.events.find((event) => event.type === DIO_DROPPED_EVENT);
    expect(dropped?.data).toMatchObject({ reason: 'context-budget', budgetTokens: 4096 - 512, compiledPromptCharacters: compiledOf(20_000).length });
    expect(result.events.map((event) => event.type)).not.toContain('actor-assembler/dio-applied');
    await harness.close();
  });

  it('still fails with BUDGET_PROMPT_TOO_LONG when the prompt does not fit even without the DIO slot', async () => {
    const harness = await createHarness({
      model: new ScriptedChatModel(),
      sessionLog: new MemorySessionLog(),
      scenario: { tokenBudget: { contextTokens: 512, responseTokens: 128 } },
      plugins: [dio(compiledOf(20_000)), actorAssemblerPlugin({ preset: { prompts: seedPrompts() } })],
    });
    const error = await harness.runTurn({ sessionId: 's', text: '很长的问题。'.repeat(200) }).catch((caught: unknown) => caught);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe('BUDGET_PROMPT_TOO_LONG');
    await harness.close();
  });
});
