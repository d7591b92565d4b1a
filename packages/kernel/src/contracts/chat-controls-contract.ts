import { describe, expect, it } from 'vitest';
import { createHarness } from '../harness/create-harness.js';
import type { Harness } from '../harness/harness-options.js';
import type { ChatRequest } from '../ports/chat-model.js';
import { ScriptedChatModel } from '../testing/scripted-chat-model.js';
import { CHAT_CONTROL_EVENTS } from '../turn/chat-control-events.js';
import { historyFromEvents } from '../turn/session-history.js';
import { codeOf, withFixture } from './contract-helpers.js';
import type { SessionLogFixture } from './session-log-contract.js';

/** A harness whose actor numbers its replies (`reply 1`, `reply 2`, …) and records what it was sent. */
async function numberedHarness(fixture: SessionLogFixture): Promise<{ harness: Harness; actorCalls: () => ChatRequest[] }> {
  let count = 0;
  const model = new ScriptedChatModel({ byStage: { actor: [() => `reply ${++count}`] } });
  const harness = await createHarness({ model, sessionLog: fixture.log });
  return { harness, actorCalls: () => model.callsFor('actor') };
}

const contents = (request: ChatRequest | undefined) => request?.messages.map((message) => message.content);

/**
 * The chat controls (swipe, edit, delete) on a given session log, through a real harness: what
 * the actor reads afterwards, and that export, import and branch keep it. Every store runs it.
 * @param name - label for the describe block
 * @param make - creates a fresh, empty log per test
 */
export function describeChatControlsContract(name: string, make: () => Promise<SessionLogFixture>): void {
  describe(`chat controls on a session log: ${name}`, () => {
    it('keeps the selected step: the actor reads the kept reply, not the latest', () =>
      withFixture(make, async (fixture) => {
        const { harness, actorCalls } = await numberedHarness(fixture);
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 1 });
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 2 });
        const kept = await harness.selectStep({ sessionId: 's', turnId: 't1', step: 0 });
        expect(kept).toMatchObject({ step: 0, reply: 'reply 1' });
        expect(kept.steps.map((step) => step.reply)).toEqual(['reply 1', 'reply 2', 'reply 3']);
        await harness.runTurn({ sessionId: 's', text: 'two', turnId: 't2' });
        expect(contents(actorCalls()[3])).toEqual(['one', 'reply 1', 'two']);
        // A new step of the turn shows the new reply again, as a regeneration does.
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 3 });
        expect(historyFromEvents(await fixture.log.read('s'), 'next').map((m) => m.content)).toEqual(['one', 'reply 5', 'two', 'reply 4']);
        await harness.close();
      }));

    it('applies an edit of input and reply and keeps the original text in the log', () =>
      withFixture(make, async (fixture) => {
        const { harness, actorCalls } = await numberedHarness(fixture);
        await harness.runTurn({ sessionId: 's', text: 'hello', turnId: 't1' });
        const edited = await harness.editTurn({ sessionId: 's', turnId: 't1', input: 'hello, Lia', reply: '莉娅笑了。' });
        expect(edited).toMatchObject({ input: 'hello, Lia', reply: '莉娅笑了。', edited: true });
        await harness.runTurn({ sessionId: 's', text: 'next', turnId: 't2' });
        expect(contents(actorCalls()[1])).toEqual(['hello, Lia', '莉娅笑了。', 'next']);
        const events = await fixture.log.read('s');
        expect(events.find((event) => event.type === 'kernel/turn-committed')?.data).toMatchObject({ input: 'hello', reply: 'reply 1' });
        expect(events.filter((event) => event.type === 'kernel/turn-edited')).toHaveLength(1);
        await harness.close();
      }));

    it("an edit of the player's line holds for every step of the turn: a swipe changes only the reply", () =>
      withFixture(make, async (fixture) => {
        const { harness, actorCalls } = await numberedHarness(fixture);
        await harness.runTurn({ sessionId: 's', text: 'helo', turnId: 't1' });
        await harness.runTurn({ sessionId: 's', text: 'helo', turnId: 't1', step: 1 });
        const edited = await harness.editTurn({ sessionId: 's', turnId: 't1', input: 'hello' });
        expect(edited.steps.map((step) => step.input)).toEqual(['hello', 'hello']);
        const swiped = await harness.selectStep({ sessionId: 's', turnId: 't1', step: 0 });
        expect(swiped).toMatchObject({ step: 0, input: 'hello', reply: 'reply 1' });
        // A reply edit stays with its own step.
        await harness.editTurn({ sessionId: 's', turnId: 't1', step: 1, reply: 'second, edited' });
        expect((await harness.selectStep({ sessionId: 's', turnId: 't1', step: 1 })).reply).toBe('second, edited');
        expect((await harness.selectStep({ sessionId: 's', turnId: 't1', step: 0 })).reply).toBe('reply 1');
        await harness.runTurn({ sessionId: 's', text: 'next', turnId: 't2' });
        expect(contents(actorCalls().at(-1))).toEqual(['hello', 'reply 1', 'next']);
        await harness.close();
      }));

    it('removes a turn and everything after it; later turns continue from what is left', () =>
      withFixture(make, async (fixture) => {
        const { harness, actorCalls } = await numberedHarness(fixture);
        for (const turnId of ['t1', 't2', 't3']) await harness.runTurn({ sessionId: 's', text: `say ${turnId}`, turnId });
        expect(await harness.removeTurns({ sessionId: 's', fromTurnId: 't2' })).toEqual(['t2', 't3']);
        await harness.runTurn({ sessionId: 's', text: 'again', turnId: 't4' });
        expect(contents(actorCalls()[3])).toEqual(['say t1', 'reply 1', 'again']);
        expect(await codeOf(harness.selectStep({ sessionId: 's', turnId: 't3', step: 0 }))).toBe('KERNEL_TURN_NOT_FOUND');
        expect((await fixture.log.read('s')).filter((event) => event.type === 'kernel/turn-committed')).toHaveLength(4);
        await harness.close();
      }));

    it('finds the latest swipe, edit and delete by their lookup key, without a scan', () =>
      withFixture(make, async (fixture) => {
        const { harness } = await numberedHarness(fixture);
        for (const turnId of ['t1', 't2']) await harness.runTurn({ sessionId: 's', text: `say ${turnId}`, turnId });
        await harness.runTurn({ sessionId: 's', text: 'say t2', turnId: 't2', step: 1 });
        await harness.selectStep({ sessionId: 's', turnId: 't2', step: 0 });
        await harness.selectStep({ sessionId: 's', turnId: 't2', step: 1 });
        await harness.editTurn({ sessionId: 's', turnId: 't1', reply: 'edited' });
        const latest = (type: string) => fixture.log.findLatest('s', { type, key: CHAT_CONTROL_EVENTS.key });
        expect(await latest(CHAT_CONTROL_EVENTS.stepSelected)).toMatchObject({ turnId: 't2', step: 1, data: { step: 1 } });
        expect(await latest(CHAT_CONTROL_EVENTS.turnEdited)).toMatchObject({ turnId: 't1', data: { reply: 'edited' } });
        expect(await latest(CHAT_CONTROL_EVENTS.turnsRemoved)).toBeUndefined();
        await harness.removeTurns({ sessionId: 's', fromTurnId: 't2' });
        expect(await latest(CHAT_CONTROL_EVENTS.turnsRemoved)).toMatchObject({ turnId: 't2', data: { fromTurnId: 't2' } });
      }));

    it('export → import keeps the visible history identical; a branch taken before an edit does not see it', () =>
      withFixture(make, async (fixture) => {
        const { harness } = await numberedHarness(fixture);
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
        await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 1 });
        await harness.selectStep({ sessionId: 's', turnId: 't1', step: 0 });
        await harness.runTurn({ sessionId: 's', text: 'two', turnId: 't2' });
        const beforeEdit = await fixture.log.read('s');
        await harness.editTurn({ sessionId: 's', turnId: 't2', reply: 'edited two' });
        await harness.runTurn({ sessionId: 's', text: 'three', turnId: 't3' });
        await harness.removeTurns({ sessionId: 's', fromTurnId: 't3' });
        const visible = historyFromEvents(await fixture.log.read('s'), 'next');
        expect(visible.map((m) => m.content)).toEqual(['one', 'reply 1', 'two', 'edited two']);

        await fixture.log.import('copy', await fixture.log.export('s'));
        expect(historyFromEvents(await fixture.log.read('copy'), 'next')).toEqual(visible);

        await fixture.log.branch('s', beforeEdit[beforeEdit.length - 1]!.id, 'before-edit');
        expect(historyFromEvents(await fixture.log.read('before-edit'), 'next').map((m) => m.content)).toEqual(['one', 'reply 1', 'two', 'reply 3']);
        await harness.close();
      }));
  });
}
