import { ManualClock } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, type DioClientOptions, DioError } from '../src/index.js';
import { type LoopbackServer, type Reply, startLoopbackServer } from './helpers/loopback-server.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { settleInVirtualTime, trackedFetch } from './helpers/virtual-time.js';

const SCHEDULE = {
  actorTurnRequestId: 'turn-1',
  userId: 'user-1',
  rpConversationId: 'conv-1',
  targetPromptId: 'lia',
  instruction: 'from now on, short sentences',
  language: 'en',
};
const QUERY = { userId: 'user-1', rpConversationId: 'conv-1', targetPromptId: 'lia' };

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A client on a virtual clock against a real loopback server: the 150 ms request timeout and the
 * retry pauses run in virtual time, so the outcome never depends on how busy the machine is.
 */
async function virtualSetup(handler: LoopbackServer['handler'], requestTimeoutMs: number, options: Omit<DioClientOptions, 'fetch' | 'clock'> = {}) {
  const started = await startLoopbackServer(handler);
  server = started;
  const clock = new ManualClock();
  const tracked = trackedFetch();
  const client = new DioClient(started.url, requestTimeoutMs, { ...options, fetch: tracked.fetch, clock });
  return { server: started, clock, client, run: <T>(promise: Promise<T>) => settleInVirtualTime(clock, started, tracked, promise) };
}

type Case = { name: string; reply: Reply; code: string; failureClass: 'permanent' | 'transient'; tries: number };
// Timeout 150 ms, budget 700 ms, pauses 200 then 400 ms (virtual). A fast transient failure is
// tried at t = 0, 200, 600; a hanging request times out after 150 ms, so tries start at t = 0, 350.
const CASES: Case[] = [
  { name: '400', reply: { status: 400, json: { ok: false } }, code: 'DIO_HTTP_PERMANENT', failureClass: 'permanent', tries: 1 },
  { name: '403', reply: { status: 403, json: { ok: false } }, code: 'DIO_HTTP_PERMANENT', failureClass: 'permanent', tries: 1 },
  { name: '429', reply: { status: 429, json: { ok: false } }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient', tries: 3 },
  { name: '500', reply: { status: 500, json: { ok: false } }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient', tries: 3 },
  { name: '503', reply: { status: 503, raw: 'upstream down' }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient', tries: 3 },
  { name: 'connection reset', reply: { reset: true }, code: 'DIO_NETWORK', failureClass: 'transient', tries: 3 },
  { name: 'malformed JSON', reply: { status: 200, raw: '{"versionId": "v1", oops' }, code: 'DIO_INVALID_RESPONSE', failureClass: 'permanent', tries: 1 },
  { name: 'timeout', reply: { hang: true }, code: 'DIO_TIMEOUT', failureClass: 'transient', tries: 2 },
];

describe('HTTP failure classification (loopback server, virtual time)', () => {
  it.each(CASES)('activePrompt: $name → $code ($failureClass), $tries tries in a 700 ms budget, one log line', async ({ reply, code, failureClass, tries }) => {
    const logger = recordingLogger();
    const setup = await virtualSetup(() => reply, 150, { logger });
    const outcome = await setup.run(setup.client.activePrompt(QUERY, { timeoutMs: 700 }));
    const error = 'error' in outcome ? outcome.error : undefined;
    expect(DioError.isInstance(error)).toBe(true);
    expect((error as DioError).code).toBe(code);
    expect((error as DioError).failureClass).toBe(failureClass);
    expect(setup.server.requests).toHaveLength(tries);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.fields).toMatchObject({ failureClass, operation: 'activePrompt' });
    expect(setup.clock.pendingTimers).toBe(0);
  });

  it.each(CASES.filter((entry) => entry.name !== 'malformed JSON'))('schedule: $name → $code, $tries tries in a 700 ms budget, one log line', async ({ reply, code, tries }) => {
    const logger = recordingLogger();
    const setup = await virtualSetup(() => reply, 150, { logger, retryBudgetMs: 700 });
    const outcome = await setup.run(setup.client.schedule(SCHEDULE));
    expect(((outcome as { error: unknown }).error as DioError).code).toBe(code);
    // A hanging service costs one request timeout per try, not the whole budget: it is retried.
    expect(setup.server.requests).toHaveLength(tries);
    expect(logger.lines).toHaveLength(1);
    expect(setup.clock.pendingTimers).toBe(0);
  });

  it('activePrompt: 404 means "no compiled prompt" and is not an error', async () => {
    const logger = recordingLogger();
    const setup = await virtualSetup(() => ({ status: 404, json: { ok: false } }), 500, { logger });
    expect(await setup.run(setup.client.activePrompt(QUERY))).toEqual({ value: undefined });
    expect(setup.server.requests).toHaveLength(1);
    expect(logger.lines).toHaveLength(1);
  });

  it('schedule: 404 is permanent (no retry)', async () => {
    const setup = await virtualSetup(() => ({ status: 404, json: { ok: false } }), 500);
    const error = ((await setup.run(setup.client.schedule(SCHEDULE))) as { error: unknown }).error;
    expect((error as DioError).code).toBe('DIO_HTTP_PERMANENT');
    expect((error as DioError).status).toBe(404);
    expect(setup.server.requests).toHaveLength(1);
  });

  it('a transient failure followed by success is retried and succeeds', async () => {
    let calls = 0;
    const setup = await virtualSetup(() => {
      calls += 1;
      return calls === 1 ? { status: 503, json: {} } : { status: 404, json: {} };
    }, 500);
    expect(await setup.run(setup.client.activePrompt(QUERY, { timeoutMs: 1_000 }))).toEqual({ value: undefined });
    expect(setup.server.requests).toHaveLength(2);
  });

  it('a 503 with Retry-After is retried after the wait the service asked for (within the budget), not the backoff', async () => {
    const seenAt: number[] = [];
    const setup = await virtualSetup(() => {
      seenAt.push(setup.clock.now());
      return seenAt.length === 1 ? { status: 503, json: {}, headers: { 'retry-after': '0.5' } } : { status: 404, json: {} };
    }, 150);
    expect(await setup.run(setup.client.activePrompt(QUERY, { timeoutMs: 2_000 }))).toEqual({ value: undefined });
    expect(seenAt).toHaveLength(2);
    expect(seenAt[1]! - seenAt[0]!).toBeGreaterThanOrEqual(500); // virtual time: the backoff alone would retry at 200
    expect(setup.clock.pendingTimers).toBe(0);
  });

  it('a Retry-After longer than the budget left is not waited for: the call fails at once, naming the wait', async () => {
    const setup = await virtualSetup(() => ({ status: 429, json: {}, headers: { 'retry-after': '600' } }), 150, { retryBudgetMs: 5_000 });
    const startedAt = setup.clock.now();
    const outcome = await setup.run(setup.client.schedule(SCHEDULE));
    const error = (outcome as { error: unknown }).error as DioError;
    expect(error.code).toBe('DIO_HTTP_TRANSIENT');
    expect(error.details).toMatchObject({ retryAfterMs: 600_000 });
    expect(setup.server.requests).toHaveLength(1);
    expect(setup.clock.now() - startedAt).toBeLessThan(5_000); // virtual time: it gave up without sleeping out the budget
    expect(setup.clock.pendingTimers).toBe(0);
  });

  it('sends the query as URL parameters, escaped', async () => {
    const setup = await virtualSetup(() => ({ status: 404, json: {} }), 500);
    await setup.run(setup.client.activePrompt({ userId: 'user@example', rpConversationId: 'conv:1', targetPromptId: 'lia' }));
    const url = new URL(setup.server.requests[0]?.url ?? '', 'http://x');
    expect(url.pathname).toBe('/v1/director/active-prompt');
    expect(Object.fromEntries(url.searchParams)).toEqual({ userId: 'user@example', conversationId: 'conv:1', targetPromptId: 'lia' });
  });
});
