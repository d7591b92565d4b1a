import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioError } from '../src/index.js';
import { type LoopbackServer, type Reply, startLoopbackServer } from './helpers/loopback-server.js';
import { recordingLogger } from './helpers/recording-logger.js';

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

type Case = { name: string; reply: Reply; code: string; failureClass: 'permanent' | 'transient' };
const CASES: Case[] = [
  { name: '400', reply: { status: 400, json: { ok: false } }, code: 'DIO_HTTP_PERMANENT', failureClass: 'permanent' },
  { name: '403', reply: { status: 403, json: { ok: false } }, code: 'DIO_HTTP_PERMANENT', failureClass: 'permanent' },
  { name: '429', reply: { status: 429, json: { ok: false } }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient' },
  { name: '500', reply: { status: 500, json: { ok: false } }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient' },
  { name: '503', reply: { status: 503, raw: 'upstream down' }, code: 'DIO_HTTP_TRANSIENT', failureClass: 'transient' },
  { name: 'connection reset', reply: { reset: true }, code: 'DIO_NETWORK', failureClass: 'transient' },
  { name: 'malformed JSON', reply: { status: 200, raw: '{"versionId": "v1", oops' }, code: 'DIO_INVALID_RESPONSE', failureClass: 'permanent' },
  { name: 'timeout', reply: { hang: true }, code: 'DIO_TIMEOUT', failureClass: 'transient' },
];

describe('HTTP failure classification', () => {
  it.each(CASES)('activePrompt: $name → $code ($failureClass), retried only when transient, one log line', async ({ reply, code, failureClass }) => {
    server = await startLoopbackServer(() => reply);
    const logger = recordingLogger();
    const client = new DioClient(server.url, 150, { logger });
    const error = await client.activePrompt(QUERY, { timeoutMs: 700 }).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error)).toBe(true);
    expect((error as DioError).code).toBe(code);
    expect((error as DioError).failureClass).toBe(failureClass);
    if (failureClass === 'permanent') expect(server.requests).toHaveLength(1);
    else expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.fields).toMatchObject({ failureClass, operation: 'activePrompt' });
  });

  it.each(CASES.filter((entry) => entry.name !== 'malformed JSON'))('schedule: $name → $code', async ({ reply, code }) => {
    server = await startLoopbackServer(() => reply);
    const logger = recordingLogger();
    const client = new DioClient(server.url, 150, { logger, retryBudgetMs: 700 });
    const error = await client.schedule(SCHEDULE).catch((caught: unknown) => caught);
    expect((error as DioError).code).toBe(code);
    expect(logger.lines).toHaveLength(1);
  });

  it('activePrompt: 404 means "no compiled prompt" and is not an error', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: { ok: false } }));
    const logger = recordingLogger();
    await expect(new DioClient(server.url, 500, { logger }).activePrompt(QUERY)).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(logger.lines).toHaveLength(1);
  });

  it('schedule: 404 is permanent (no retry)', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: { ok: false } }));
    const error = await new DioClient(server.url, 500).schedule(SCHEDULE).catch((caught: unknown) => caught);
    expect((error as DioError).code).toBe('DIO_HTTP_PERMANENT');
    expect((error as DioError).status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });

  it('a transient failure followed by success is retried and succeeds', async () => {
    let calls = 0;
    server = await startLoopbackServer(() => {
      calls += 1;
      return calls === 1 ? { status: 503, json: {} } : { status: 404, json: {} };
    });
    await expect(new DioClient(server.url, 500).activePrompt(QUERY, { timeoutMs: 1_000 })).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(2);
  });

  it('sends the query as URL parameters, escaped', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: {} }));
    await new DioClient(server.url, 500).activePrompt({ userId: 'user@example', rpConversationId: 'conv:1', targetPromptId: 'lia' });
    const url = new URL(server.requests[0]?.url ?? '', 'http://x');
    expect(url.pathname).toBe('/v1/director/active-prompt');
    expect(Object.fromEntries(url.searchParams)).toEqual({ userId: 'user@example', conversationId: 'conv:1', targetPromptId: 'lia' });
  });
});
