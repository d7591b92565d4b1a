import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers.js';

async function numbered() {
  let count = 0;
  const model = new ScriptedChatModel({ byStage: { actor: [() => `reply ${++count}`] } });
  return createTestHarness({ model });
}

describe('chat controls: bad requests', () => {
  it('names an unknown turn, an uncommitted step and an invalid request with stable codes, and writes nothing', async () => {
    const { harness, sessionLog } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    const before = (await sessionLog.read('s')).length;
    expect(await rejectionOf(harness.selectStep({ sessionId: 's', turnId: 'nope', step: 0 }))).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
    expect(await rejectionOf(harness.selectStep({ sessionId: 's', turnId: 't1', step: 4 }))).toMatchObject({ code: 'KERNEL_STEP_NOT_FOUND' });
    expect(await rejectionOf(harness.editTurn({ sessionId: 's', turnId: 't1', step: 2, reply: 'x' }))).toMatchObject({ code: 'KERNEL_STEP_NOT_FOUND' });
    expect(await rejectionOf(harness.editTurn({ sessionId: 's', turnId: 't1' }))).toMatchObject({ code: 'KERNEL_CHAT_CONTROL_INVALID' });
    expect(await rejectionOf(harness.editTurn({ sessionId: 's', turnId: 't1', input: '' }))).toMatchObject({ code: 'KERNEL_CHAT_CONTROL_INVALID' });
    expect(await rejectionOf(harness.removeTurns({ sessionId: 'S!', fromTurnId: 't1' }))).toMatchObject({ code: 'KERNEL_CHAT_CONTROL_INVALID' });
    expect(await rejectionOf(harness.removeTurns({ sessionId: 's', fromTurnId: 'gone' }))).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
    expect(await rejectionOf(harness.continueTurn({ sessionId: 'empty' }))).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
    expect((await sessionLog.read('s')).length).toBe(before);
  });

  it('edits a step that is not kept without changing the visible reply until it is selected', async () => {
    const { harness } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 1 });
    expect(await harness.editTurn({ sessionId: 's', turnId: 't1', step: 0, reply: 'first, edited' })).toMatchObject({ step: 1, reply: 'reply 2' });
    expect(await harness.selectStep({ sessionId: 's', turnId: 't1', step: 0 })).toMatchObject({ step: 0, reply: 'first, edited', edited: true });
  });
});

describe('continue', () => {
  it('asks the actor to extend the kept reply and commits the joined reply as a new step', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['Lia looks up', ' and smiles.', 'Fine.'] } });
    const { harness } = await createTestHarness({ model });
    await harness.runTurn({ sessionId: 's', text: 'hello', turnId: 't1' });
    const deltas: string[] = [];
    const result = await harness.continueTurn({ sessionId: 's' }, { onReplyDelta: (text) => deltas.push(text) });
    expect(result).toMatchObject({ turnId: 't1', step: 1, reply: 'Lia looks up and smiles.' });
    expect(deltas.join('')).toBe(' and smiles.');
    expect(model.callsFor('actor')[1]?.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Lia looks up' },
    ]);
    expect(result.events.at(-1)?.data).toMatchObject({ continuedFrom: 0 });
    // The next turn reads the continued reply; swiping back shows the reply as it was.
    await harness.runTurn({ sessionId: 's', text: 'next', turnId: 't2' });
    expect(model.callsFor('actor')[2]?.messages.map((message) => message.content)).toEqual(['hello', 'Lia looks up and smiles.', 'next']);
  });

  it('continues an edited reply, and refuses a turn that is not the last', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['one', 'two', '…more'] } });
    const { harness } = await createTestHarness({ model });
    await harness.runTurn({ sessionId: 's', text: 'a', turnId: 't1' });
    await harness.runTurn({ sessionId: 's', text: 'b', turnId: 't2' });
    expect(await rejectionOf(harness.continueTurn({ sessionId: 's', turnId: 't1' }))).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
    await harness.editTurn({ sessionId: 's', turnId: 't2', reply: 'TWO' });
    expect(await harness.continueTurn({ sessionId: 's', turnId: 't2' })).toMatchObject({ step: 1, reply: 'TWO…more' });
  });

  it('commits nothing when cancelled mid-stream', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['start', 'a long continuation'] }, streamChunkSize: 2 });
    const { harness, sessionLog } = await createTestHarness({ model });
    await harness.runTurn({ sessionId: 's', text: 'a', turnId: 't1' });
    const before = (await sessionLog.read('s')).length;
    const controller = new AbortController();
    const run = harness.continueTurn({ sessionId: 's' }, { signal: controller.signal, onReplyDelta: () => controller.abort(new Error('stop')) });
    expect(await rejectionOf(run)).toMatchObject({ message: 'stop' });
    expect((await sessionLog.read('s')).length).toBe(before);
  });
});
