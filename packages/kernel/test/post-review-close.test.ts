import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { deferred, testPlugin } from './helpers.js';

// A committed turn's postReview work (the story plugin settles the reply into the workspace
// there) runs as a fiber in the harness's scope: close() drains it within its grace and
// interrupts it after (its signal aborts first), and a session's next turn starts only after it.

const types = async (log: MemorySessionLog, sessionId: string) => (await log.read(sessionId)).map((event) => event.type);

/** A plugin whose postReview waits for `gate` and then records a write-back; it reports when it started. */
function slowWriteBack(gate: Promise<void>, seen: { signal?: AbortSignal; started: () => void }) {
  return testPlugin('write-back', (ctx) => {
    ctx.hooks.postReview(async (turn, turnCtx) => {
      seen.signal = turnCtx.signal;
      seen.started();
      // Ignores its signal on purpose: a careless handler must not hold close() past its grace.
      await gate;
      turnCtx.events.append('write-back/settled', { reply: turn.reply });
    });
  });
}

describe('close() and a committed turn still running its postReview', () => {
  it.each([
    { grace: 'no grace', timeoutMs: undefined },
    { grace: 'a grace it fits in', timeoutMs: 60_000 },
  ])('drains it ($grace): the write-back and kernel/post-review-done land, the turn resolves', async ({ timeoutMs }) => {
    const gate = deferred();
    const inFlight = deferred();
    const seen: { signal?: AbortSignal; started: () => void } = { started: () => inFlight.resolve() };
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ plugins: [slowWriteBack(gate.promise, seen)], model: new ScriptedChatModel(), sessionLog });
    const turn = harness.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' });
    await inFlight.promise;
    let closed = false;
    const closing = harness.close(timeoutMs === undefined ? {} : { timeoutMs }).then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    gate.resolve();
    await closing;
    const result = await turn;
    expect(result.events.map((event) => event.type)).toEqual(['kernel/turn-committed', 'write-back/settled', 'kernel/post-review-done']);
    expect(seen.signal?.aborted).toBe(false);
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-committed', 'write-back/settled', 'kernel/post-review-done']);
  });

  it('interrupts it after the grace: its signal aborts with KERNEL_HARNESS_CLOSED, the turn rejects, nothing more is written', async () => {
    const gate = deferred();
    const inFlight = deferred();
    const seen: { signal?: AbortSignal; started: () => void } = { started: () => inFlight.resolve() };
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ plugins: [slowWriteBack(gate.promise, seen)], model: new ScriptedChatModel(), sessionLog });
    const turn = harness.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' }).catch((error: unknown) => error);
    await inFlight.promise;
    // The handler never looks at its signal, yet close() ends after its grace.
    await harness.close({ timeoutMs: 20 });
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    expect(await turn).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    // The handler finishing later writes nothing: the turn stays unfinished for the next start.
    gate.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-committed']);
  });

  it('a turn that commits after the grace has its postReview interrupted at once; the next start finishes both', async () => {
    const actorGate = deferred();
    const postReviewGate = deferred();
    const inFlight = deferred();
    const seen: { signal?: AbortSignal; started: () => void } = { started: () => inFlight.resolve() };
    const sessionLog = new MemorySessionLog();
    // Session a is in its postReview when close() starts; session b's actor is still answering.
    const answering = deferred();
    const model = new ScriptedChatModel({
      byStage: {
        actor: [
          (request) => `echo: ${request.messages.at(-1)?.content}`,
          async () => {
            answering.resolve();
            await actorGate.promise;
            return 'late reply';
          },
        ],
      },
    });
    const harness = await createHarness({ plugins: [slowWriteBack(postReviewGate.promise, seen)], model, sessionLog });
    const first = harness.runTurn({ sessionId: 'a', text: 'hi', turnId: 'a1' }).catch((error: unknown) => error);
    await inFlight.promise;
    const second = harness.runTurn({ sessionId: 'b', text: 'hello', turnId: 'b1' }).catch((error: unknown) => error);
    await answering.promise;
    const closing = harness.close({ timeoutMs: 20 });
    // b commits only after a's postReview was interrupted.
    setTimeout(() => actorGate.resolve(), 60);
    await closing;
    expect(await first).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    expect(await second).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    expect(await types(sessionLog, 'a')).toEqual(['kernel/turn-committed']);
    expect(await types(sessionLog, 'b')).toEqual(['kernel/turn-committed']);

    const finished: string[] = [];
    const recording = testPlugin('write-back', (ctx) => ctx.hooks.postReview((turn) => void finished.push(turn.turnId)));
    const next = await createHarness({ plugins: [recording], model: new ScriptedChatModel(), sessionLog });
    expect(await next.finishCommittedTurn('a')).toBe(true);
    expect(await next.finishCommittedTurn('b')).toBe(true);
    expect(finished).toEqual(['a1', 'b1']);
    await next.close();
  });
});

describe('a session\u2019s next turn waits for the postReview work of the one before', () => {
  it('reads what the previous turn\u2019s postReview wrote, and the log keeps the order', async () => {
    const gate = deferred();
    const inFlight = deferred();
    const seenByNext: unknown[] = [];
    const plugin = testPlugin('write-back', (ctx) => {
      ctx.hooks.preActor(async (_input, turnCtx) => {
        const settled = await turnCtx.events.findLatest({ type: 'write-back/settled', key: 'latest' });
        seenByNext.push(settled?.data ?? null);
      });
      ctx.hooks.postReview(async (turn, turnCtx) => {
        if (turn.turnId === 't1') {
          inFlight.resolve();
          await gate.promise;
        }
        turnCtx.events.append('write-back/settled', { turnId: turn.turnId }, { key: 'latest' });
      });
    });
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    const first = harness.runTurn({ sessionId: 's', text: 'first', turnId: 't1' });
    await inFlight.promise;
    // Queued while t1 is committed but still settling.
    const second = harness.runTurn({ sessionId: 's', text: 'second', turnId: 't2' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seenByNext).toEqual([null]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(seenByNext).toEqual([null, { turnId: 't1' }]);
    expect((await sessionLog.read('s')).map((event) => `${event.turnId} ${event.type}`)).toEqual([
      't1 kernel/turn-committed',
      't1 write-back/settled',
      't1 kernel/post-review-done',
      't2 kernel/turn-committed',
      't2 write-back/settled',
      't2 kernel/post-review-done',
    ]);
    await harness.close();
  });
});
