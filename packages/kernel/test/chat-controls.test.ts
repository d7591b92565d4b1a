import { contextKeys } from '@troupe/kernel';
import { createTestHarness, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPlugin } from './helpers.js';

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

describe('regenerate', () => {
  it('runs the last visible turn again as the step after its highest, with its visible (edited) line', async () => {
    const { harness, model } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    await harness.editTurn({ sessionId: 's', turnId: 't1', step: 0, input: 'one, edited' });
    const result = await harness.regenerateTurn({ sessionId: 's', turnId: 't1' });
    expect(result).toMatchObject({ turnId: 't1', step: 1, reply: 'reply 2' });
    expect(model.callsFor('actor')[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'one, edited' });
    expect(await rejectionOf(harness.regenerateTurn({ sessionId: 'empty' }))).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
  });

  it('two regenerations sent at once get steps 1 and 2: neither reply is lost', async () => {
    const { harness, sessionLog } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    const [a, b] = await Promise.all([harness.regenerateTurn({ sessionId: 's', turnId: 't1' }), harness.regenerateTurn({ sessionId: 's', turnId: 't1' })]);
    expect([a.step, b.step]).toEqual([1, 2]);
    const commits = (await sessionLog.read('s')).filter((e) => e.type === 'kernel/turn-committed');
    expect(commits.map((e) => e.step)).toEqual([0, 1, 2]);
  });

  it('a regeneration queued behind a new turn is refused: it is no longer the last turn', async () => {
    const { harness, sessionLog } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    const next = harness.runTurn({ sessionId: 's', text: 'two', turnId: 't2' });
    const late = rejectionOf(harness.regenerateTurn({ sessionId: 's', turnId: 't1' }));
    await next;
    expect(await late).toMatchObject({ code: 'KERNEL_TURN_NOT_FOUND' });
    expect((await sessionLog.read('s')).filter((e) => e.type === 'kernel/turn-committed').map((e) => [e.turnId, e.step])).toEqual([
      ['t1', 0],
      ['t2', 0],
    ]);
  });

  it('a continue and a regeneration sent at once both keep their replies, as steps 1 and 2', async () => {
    const { harness } = await numbered();
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    const [continued, regenerated] = await Promise.all([harness.continueTurn({ sessionId: 's' }), harness.regenerateTurn({ sessionId: 's', turnId: 't1' })]);
    expect([continued.step, regenerated.step]).toEqual([1, 2]);
    expect(continued.reply).toBe('reply 1reply 2');
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

  it("joins the kept reply and the continuation with the text a plugin sets in contextKeys.continuationJoin (SillyTavern's continue_postfix)", async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['Lia looks up.', 'She smiles.'] } });
    const joiner = testPlugin('joiner', (ctx) => {
      ctx.hooks.actorAssemble((prepared, turn) => {
        if (turn.get(contextKeys.continuation)) turn.set(contextKeys.continuationJoin, ' ');
        return prepared;
      });
    });
    const { harness } = await createTestHarness({ model, plugins: [joiner] });
    await harness.runTurn({ sessionId: 's', text: 'hello', turnId: 't1' });
    expect((await harness.continueTurn({ sessionId: 's' })).reply).toBe('Lia looks up. She smiles.');
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
