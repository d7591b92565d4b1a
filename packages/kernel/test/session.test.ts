import { createModelRegistry } from '@troupe/kernel';
import { createTestHarness, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { deferred, rejectionOf, testPlugin } from './helpers.js';

describe('sessions and turns', () => {
  it('loads earlier turns from the session log as history', async () => {
    const { harness, model } = await createTestHarness();
    await harness.runTurn({ sessionId: 's', text: '你好，莉娅。' });
    await harness.runTurn({ sessionId: 's', text: 'How are you?' });
    expect(model.callsFor('actor')[1]?.messages).toEqual([
      { role: 'user', content: '你好，莉娅。' },
      { role: 'assistant', content: 'echo: 你好，莉娅。' },
      { role: 'user', content: 'How are you?' },
    ]);
  });

  it('leaves a regenerated turn out of its own history and keeps its latest step', async () => {
    let reply = 0;
    const model = new ScriptedChatModel({ byStage: { actor: [() => `reply ${++reply}`] } });
    const { harness } = await createTestHarness({ model });
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1' });
    await harness.runTurn({ sessionId: 's', text: 'one', turnId: 't1', step: 1 });
    expect(model.callsFor('actor')[1]?.messages).toEqual([{ role: 'user', content: 'one' }]);
    await harness.runTurn({ sessionId: 's', text: 'two', turnId: 't2' });
    expect(model.callsFor('actor')[2]?.messages.map((message) => message.content)).toEqual(['one', 'reply 2', 'two']);
  });

  it('streams the actor reply through onReplyDelta', async () => {
    const model = new ScriptedChatModel({ byStage: { actor: ['Lia nods slowly.'] }, streamChunkSize: 5 });
    const { harness } = await createTestHarness({ model });
    const deltas: string[] = [];
    const result = await harness.runTurn({ sessionId: 's', text: 'hi' }, { onReplyDelta: (text) => deltas.push(text) });
    expect(deltas).toEqual(['Lia n', 'ods s', 'lowly', '.']);
    expect(result.reply).toBe('Lia nods slowly.');
  });

  it('runs the turns of one session one at a time, in call order', async () => {
    const gate = deferred();
    const order: string[] = [];
    const plugin = testPlugin('gate', (ctx) => {
      ctx.hooks.preActor(async (input) => {
        order.push(`start ${input}`);
        if (input === 'first') await gate.promise;
        order.push(`end ${input}`);
      });
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const first = harness.runTurn({ sessionId: 's', text: 'first' });
    const second = harness.runTurn({ sessionId: 's', text: 'second' });
    const other = harness.runTurn({ sessionId: 'other', text: 'other' });
    await other;
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['start first', 'start other', 'end other', 'end first', 'start second', 'end second']);
  });

  it('passes live events to onEvent', async () => {
    const plugin = testPlugin('progress', (ctx) => {
      ctx.hooks.preActor((_input, turn) => turn.events.append('progress/stage', { stage: 'research' }));
    });
    const { harness } = await createTestHarness({ plugins: [plugin] });
    const seen: string[] = [];
    await harness.runTurn({ sessionId: 's', text: 'hi' }, { onEvent: (event) => seen.push(event.type) });
    expect(seen).toEqual(['progress/stage', 'kernel/turn-committed']);
  });

  it('reports the commit to onEvent only once the session log has stored it (a UI says "saved" only then)', async () => {
    const sessionLog = new MemorySessionLog();
    const storing = deferred<void>();
    const append = sessionLog.append.bind(sessionLog);
    // A slow disk: the commit's append finishes only when the test lets it.
    sessionLog.append = async (sessionId, events) => {
      if (events.some((event) => event.type === 'kernel/turn-committed')) await storing.promise;
      return append(sessionId, events);
    };
    const { harness } = await createTestHarness({ sessionLog });
    const reported: string[] = [];
    const turn = harness.runTurn({ sessionId: 's', text: 'hi' }, { onEvent: (event) => reported.push(event.type) });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reported).toEqual([]);
    storing.resolve();
    await turn;
    expect(reported).toEqual(['kernel/turn-committed']);
    expect((await sessionLog.read('s')).filter((event) => event.type === 'kernel/turn-committed')).toHaveLength(1);
  });

  it('resolves the actor model per scenario from a registry', async () => {
    const fallback = new ScriptedChatModel({ id: 'default', fallback: 'default model' });
    const special = new ScriptedChatModel({ id: 'special', fallback: 'special model' });
    const models = createModelRegistry(fallback, { 'openai-compatible/qwen': special });
    const { harness } = await createTestHarness({ models });
    expect((await harness.runTurn({ sessionId: 's', text: 'hi' })).reply).toBe('default model');
    const chosen = await harness.runTurn({ sessionId: 's', text: 'hi', scenario: { actorModel: { provider: 'openai-compatible', model: 'qwen' } } });
    expect(chosen.reply).toBe('special model');
    const missing = await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi', scenario: { actorModel: { provider: 'nope' } } }));
    expect(missing).toMatchObject({ code: 'KERNEL_MODEL_NOT_FOUND' });
  });

  it('never stores the authorization header', async () => {
    const { harness, sessionLog } = await createTestHarness();
    await harness.runTurn({ sessionId: 's', text: 'hi', authorization: 'Bearer secret-token' });
    expect(await sessionLog.export('s')).not.toContain('secret-token');
  });
});

describe('the committed-turn rule', () => {
  it('keeps each turn once, at its first position, with its latest step, and skips malformed payloads', async () => {
    const { foldCommittedTurns, historyFromEvents } = await import('../src/turn/session-history.js');
    const event = (id: string, turnId: string, step: number, data: unknown) => ({
      id,
      sessionId: 's',
      turnId,
      step,
      type: 'kernel/turn-committed',
      ignorable: false,
      at: '2026-01-01T00:00:00.000Z',
      data,
    });
    const events = [
      event('e1', 't1', 0, { input: 'one', reply: 'first try' }),
      event('e2', 't2', 0, { input: 'two', reply: 'reply two' }),
      event('e3', 't1', 1, { input: 'one', reply: 'second try' }),
      event('e4', 't3', 0, { input: 42 }),
    ];
    expect([...foldCommittedTurns(events).values()].map((turn) => [turn.turnId, turn.step, turn.reply])).toEqual([
      ['t1', 1, 'second try'],
      ['t2', 0, 'reply two'],
    ]);
    expect(historyFromEvents(events, 't2').map((message) => message.content)).toEqual(['one', 'second try']);
  });

  it('leaves a malformed imported turn out of the actor history instead of sending undefined', async () => {
    const { harness, sessionLog, model } = await createTestHarness();
    const bad = '{"id":"e1","sessionId":"x","turnId":"t0","step":0,"type":"kernel/turn-committed","ignorable":false,"at":"2026-01-01T00:00:00.000Z","data":{"reply":"no input"}}\n';
    await sessionLog.import('imported', bad);
    await harness.runTurn({ sessionId: 'imported', text: 'hello' });
    expect(model.callsFor('actor')[0]?.messages).toEqual([{ role: 'user', content: 'hello' }]);
  });
});
