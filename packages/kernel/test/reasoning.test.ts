import { createHarness, KernelError, TURN_COMMITTED } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers.js';

describe('the actor’s reasoning', () => {
  it('streams to onReasoningDelta, is kept in the result and the commit event, and never reaches the next prompt', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: [{ text: 'Welcome, traveler.', reasoning: 'Greet them warmly.' }, 'Second.'] } });
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ model, sessionLog });
    const reasoning: string[] = [];
    const reply: string[] = [];
    const result = await harness.runTurn(
      { sessionId: 's', text: 'Hello' },
      { onReasoningDelta: (text) => reasoning.push(text), onReplyDelta: (text) => reply.push(text) },
    );
    expect(reasoning.join('')).toBe('Greet them warmly.');
    expect(reply.join('')).toBe('Welcome, traveler.');
    expect(result.reply).toBe('Welcome, traveler.');
    expect(result.reasoning).toBe('Greet them warmly.');
    const commit = result.events.find((event) => event.type === TURN_COMMITTED);
    expect(commit?.data).toMatchObject({ input: 'Hello', reply: 'Welcome, traveler.', reasoning: 'Greet them warmly.' });
    await harness.runTurn({ sessionId: 's', text: 'Again' });
    const second = model.callsFor('actor')[1]!;
    expect(second.messages).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Welcome, traveler.' },
      { role: 'user', content: 'Again' },
    ]);
    await harness.close();
  });

  it('an answer with reasoning and no reply fails the turn with KERNEL_MODEL_FAILED and commits nothing', async () => {
    for (const streaming of [true, false]) {
      const model = new ScriptedChatModel({ byStage: { actor: [{ text: '', reasoning: 'Thinking about the fog…', finishReason: 'length' }] } });
      const sessionLog = new MemorySessionLog();
      const harness = await createHarness({ model, sessionLog });
      const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'Hello' }, streaming ? { onReplyDelta: () => {} } : {}));
      expect(KernelError.isInstance(error)).toBe(true);
      expect((error as KernelError).code).toBe('KERNEL_MODEL_FAILED');
      expect((error as KernelError).details).toMatchObject({ reason: 'reasoning-only', finishReason: 'length' });
      const events = await sessionLog.read('s');
      expect(events.some((event) => event.type === TURN_COMMITTED)).toBe(false);
      await harness.close();
    }
  });

  it('a blank answer (nothing, whitespace, a tool call only) fails the turn with KERNEL_MODEL_FAILED and commits nothing', async () => {
    const blanks = [{ text: '' }, { text: ' \n\n  ' }, { text: '', toolCalls: [{ id: 'c1', name: 'roll', arguments: '{}' }] }, { text: '', finishReason: 'content_filter' }];
    for (const answer of blanks) {
      for (const streaming of [true, false]) {
        const model = new ScriptedChatModel({ byStage: { actor: [answer] } });
        const sessionLog = new MemorySessionLog();
        const harness = await createHarness({ model, sessionLog });
        const error = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'Hello' }, streaming ? { onReplyDelta: () => {} } : {}));
        expect((error as KernelError).code).toBe('KERNEL_MODEL_FAILED');
        expect((error as KernelError).details).toMatchObject({ reason: 'empty' });
        expect((error as KernelError).message).toContain(answer.finishReason === 'content_filter' ? 'content filter' : 'no text');
        expect((await sessionLog.read('s')).some((event) => event.type === TURN_COMMITTED)).toBe(false);
        await harness.close();
      }
    }
  });
});
