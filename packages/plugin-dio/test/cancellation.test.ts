import { createHarness } from '@troupe/kernel';
import { ManualClock, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, dioPlugin, type FetchLike } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';
import { recordingLogger } from './helpers/recording-logger.js';

const STRESS = process.env.STRESS === '1';
const BASE = 'http://127.0.0.1:9';

/** Processing forever; request number `hangAt` hangs until its signal aborts. */
function transport(hangAt: number) {
  let started = 0;
  const fetch: FetchLike = (_url, init) => {
    const index = started++;
    if (index === hangAt) {
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
    }
    return Promise.resolve(new Response(JSON.stringify({ requestId: 'r:dio', status: 'processing', promptChanged: false }), { status: 200 }));
  };
  return { fetch, started: () => started };
}

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cancellation', () => {
  it(`waitForTerminal aborted at a random tick rejects with AbortError, sends nothing more and leaves no timer (${STRESS ? 'full 16 min range' : '0–30 s range'}, 1 000 runs)`, async () => {
    // Strictly before the 16-minute budget ends: at 16:00 the wait has already finished on its own.
    const maxMs = STRESS ? 16 * 60 * 1000 - 1 : 30_000;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: maxMs }), fc.integer({ min: -1, max: 40 }), async (abortAt, hangAt) => {
        const clock = new ManualClock();
        const { fetch, started } = transport(hangAt);
        const logger = recordingLogger();
        const client = new DioClient(BASE, 5_000, { fetch, clock, logger });
        const controller = new AbortController();
        const waiting = client.waitForTerminal('r:dio', { signal: controller.signal }).then(
          () => 'resolved',
          (error: unknown) => error,
        );
        await clock.advance(abortAt);
        controller.abort();
        const outcome = await waiting;
        expect(outcome).toBeInstanceOf(DOMException);
        expect((outcome as DOMException).name).toBe('AbortError');
        const sent = started();
        await clock.advance(10_000);
        expect(started()).toBe(sent);
        expect(clock.pendingTimers).toBe(0);
        // One line, and it says "cancelled" — not a failure.
        expect(logger.lines.map((line) => line.message)).toEqual(['dio waitForTerminal cancelled']);
      }),
      { numRuns: 1_000, seed: 20_261_129 },
    );
  }, 600_000);

  it('an aborted turn during the lookup rejects with the abort reason and writes no degrade event', async () => {
    server = await startLoopbackServer(() => ({ hang: true }));
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia', lookupTimeoutMs: 60_000, requestTimeoutMs: 60_000 })],
      model: new ScriptedChatModel(),
      sessionLog,
    });
    const controller = new AbortController();
    const turn = harness.runTurn({ sessionId: 's1', text: 'hi', userId: 'user-1' }, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new DOMException('player left', 'AbortError');
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
    expect(await sessionLog.read('s1')).toEqual([]);
    expect(server.requests).toHaveLength(1);
    await harness.close();
  });

  it('closing the harness aborts the background wait without a degrade event', async () => {
    const clock = new ManualClock();
    const { fetch } = transport(-1);
    const scheduleFetch: FetchLike = (url, init) =>
      url.endsWith('/v1/chat')
        ? Promise.resolve(
            new Response(
              JSON.stringify({ ok: true, accepted: true, conversationId: 'dio_s1', targetPromptId: 'lia', taskMessageId: 't1:dio:assistant', requestId: 't1:dio' }),
              { status: 202 },
            ),
          )
        : url.includes('active-prompt')
          ? Promise.resolve(new Response('{}', { status: 404 }))
          : fetch(url, init).then(() => new Response(JSON.stringify({ requestId: 't1:dio', status: 'processing', promptChanged: false }), { status: 200 }));
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: BASE, targetPromptId: 'lia', fetch: scheduleFetch })],
      model: new ScriptedChatModel({ byStage: { director: [{ text: '', toolCalls: [{ id: 'c', name: 'schedule_dio', arguments: {} }] }, 'none'] } }),
      sessionLog,
      clock,
      scenario: { preActorDirector: true },
    });
    await harness.runTurn({ sessionId: 's1', turnId: 't1', text: 'from now on, short sentences', userId: 'user-1' });
    await clock.advance(30_000);
    expect(harness.backgroundTasks).toBe(1);
    await harness.close();
    const types = (await sessionLog.read('s1')).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('dio/task-'))).toEqual([]);
    expect(types).not.toContain('kernel/background-failed');
    expect(clock.pendingTimers).toBe(0);
  });
});
