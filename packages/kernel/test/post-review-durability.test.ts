import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { testPlugin } from './helpers.js';

// Once a turn is committed, its postReview work (e.g. the story continuity write-back) must finish
// even if the caller goes away; a committed turn whose work never finished is finished later from
// the session log, exactly once.

const doneEvents = async (log: MemorySessionLog, sessionId: string) => (await log.read(sessionId)).filter((event) => event.type === 'kernel/post-review-done');

describe('postReview after the commit', () => {
  it('finishes when the caller aborts right after the commit', async () => {
    const caller = new AbortController();
    const finished: string[] = [];
    const plugin = testPlugin('write-back', (ctx) => {
      ctx.hooks.postReview(async (turn, turnCtx) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(turnCtx.signal.aborted).toBe(false);
        finished.push(turn.reply);
        turnCtx.events.append('write-back/done', { reply: turn.reply });
      });
    });
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    const result = await harness.runTurn(
      { sessionId: 's', text: 'hi' },
      // The browser tab closes the moment the commit is reported.
      { signal: caller.signal, onEvent: (event) => event.type === 'kernel/turn-committed' && caller.abort(new Error('tab closed')) },
    );
    expect(caller.signal.aborted).toBe(true);
    expect(finished).toEqual(['echo: hi']);
    expect(result.events.map((event) => event.type)).toEqual(['kernel/turn-committed', 'write-back/done', 'kernel/post-review-done']);
    expect(await doneEvents(sessionLog, 's')).toHaveLength(1);
    await harness.close();
  });

  it('close() with a deadline cuts it short; the next harness finishes it once, from the committed reply', async () => {
    const sessionLog = new MemorySessionLog();
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const hanging = testPlugin('write-back', (ctx) => {
      ctx.hooks.postReview(async (_turn, turnCtx) => {
        started();
        await new Promise((_resolve, reject) => turnCtx.signal.addEventListener('abort', () => reject(turnCtx.signal.reason)));
      });
    });
    const first = await createHarness({ plugins: [hanging], model: new ScriptedChatModel(), sessionLog });
    const turn = first.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' }).catch((error: unknown) => error);
    await inFlight;
    await first.close({ timeoutMs: 20 });
    expect(await turn).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    expect(await doneEvents(sessionLog, 's')).toHaveLength(0);

    const resumed: { turnId: string; reply: string; resumed?: true }[] = [];
    const recording = testPlugin('write-back', (ctx) => {
      ctx.hooks.postReview((committed) => {
        resumed.push({ turnId: committed.turnId, reply: committed.reply, ...(committed.resumed ? { resumed: committed.resumed } : {}) });
      });
    });
    const second = await createHarness({ plugins: [recording], model: new ScriptedChatModel(), sessionLog });
    expect(await second.finishCommittedTurn('s')).toBe(true);
    expect(await second.finishCommittedTurn('s')).toBe(false);
    expect(resumed).toEqual([{ turnId: 't1', reply: 'echo: hi', resumed: true }]);
    // The session's next turn does not finish it again; its own postReview runs once.
    await second.runTurn({ sessionId: 's', text: 'again', turnId: 't2' });
    expect(resumed.map((entry) => entry.turnId)).toEqual(['t1', 't2']);
    expect((await doneEvents(sessionLog, 's')).map((event) => event.key)).toEqual(['t1:0', 't2:0']);
    await second.close();
  });

  it('the session\u2019s next turn finishes a committed turn left unfinished by a crash before it runs', async () => {
    const sessionLog = new MemorySessionLog();
    // A crash after the commit: the log holds the commit and nothing after it.
    const crashed = await createHarness({ model: new ScriptedChatModel(), sessionLog });
    await crashed.runTurn({ sessionId: 's', text: 'first', turnId: 't1' });
    await crashed.close();
    const order: string[] = [];
    const plugin = testPlugin('write-back', (ctx) => {
      ctx.hooks.postReview((committed) => {
        order.push(`${committed.turnId}${committed.resumed ? ' (resumed)' : ''}`);
      });
    });
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    await harness.runTurn({ sessionId: 's', text: 'second', turnId: 't2' });
    expect(order).toEqual(['t1 (resumed)', 't2']);
    await harness.close();
  });
});
