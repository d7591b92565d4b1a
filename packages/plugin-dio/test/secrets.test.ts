import { createHarness, type Harness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioError, dioPlugin } from '../src/index.js';
import { type LoopbackServer, type Reply, type SeenRequest, startLoopbackServer } from './helpers/loopback-server.js';
import { recordingLogger } from './helpers/recording-logger.js';

const TOKEN = 'sk-player-secret-0123456789';
const AUTHORIZATION = `Bearer ${TOKEN}`;
const QUERY = { userId: 'user-1', rpConversationId: 'conv-1', targetPromptId: 'lia', userAuthorization: AUTHORIZATION };

/** A careless service that echoes the Authorization header back in its error bodies. */
const echo = (status: number) => (request: SeenRequest): Reply => ({ status, raw: `error: rejected credentials ${request.headers.authorization ?? ''}` });

let server: LoopbackServer | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = undefined;
  server = undefined;
});

describe('the player authorization is forwarded but never logged', () => {
  it.each([
    ['400', 400],
    ['500', 500],
    ['malformed 200', 200],
  ])('activePrompt failing with %s (body echoes the header): neither the log nor the error carries it', async (_name, status) => {
    server = await startLoopbackServer(echo(status));
    const logger = recordingLogger();
    const error = await new DioClient(server.url, 2_000, { logger }).activePrompt(QUERY, { timeoutMs: 2_000 }).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error)).toBe(true);
    expect(server.requests[0]?.headers.authorization).toBe(AUTHORIZATION);
    expect(logger.lines).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
    expect((error as Error).message).not.toContain(TOKEN);
    expect((error as Error).message).toContain('[redacted]');
  });

  it('waitForTerminal failing permanently (body echoes the header): neither the log nor the error carries it', async () => {
    server = await startLoopbackServer(echo(403));
    const logger = recordingLogger();
    const error = await new DioClient(server.url, 2_000, { logger })
      .waitForTerminal('t1:dio', { userAuthorization: AUTHORIZATION, intervalMs: 10 })
      .catch((caught: unknown) => caught);
    expect(DioError.isInstance(error) && error.code).toBe('DIO_HTTP_PERMANENT');
    expect(server.requests[0]?.headers.authorization).toBe(AUTHORIZATION);
    expect(logger.lines).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('in turns: the lookup and the background wait fail against an echoing service; no log line and no session event carries the token', async () => {
    server = await startLoopbackServer((request) => {
      if (request.method === 'POST') {
        const body = JSON.parse(request.body);
        return {
          status: 202,
          json: { ok: true, accepted: true, conversationId: body.conversationId, targetPromptId: body.targetPromptId, taskMessageId: body.messageId, requestId: body.requestId },
        };
      }
      return echo(request.url.includes('active-prompt') ? 500 : 401)(request);
    });
    const logger = recordingLogger();
    const sessionLog = new MemorySessionLog();
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia', pollIntervalMs: 10, lookupTimeoutMs: 2_000 })],
      model: new ScriptedChatModel({ byStage: { director: [{ text: '', toolCalls: [{ id: 'c1', name: 'schedule_dio', arguments: {} }] }, 'none'] } }),
      sessionLog,
      logger,
      scenario: { preActorDirector: true },
    });
    const result = await harness.runTurn({ sessionId: 's1', turnId: 't1', text: 'from now on, short sentences', userId: 'user-1', authorization: AUTHORIZATION });
    expect(result.events.map((event) => event.type)).toEqual(expect.arrayContaining(['dio/active-prompt-degraded', 'dio/scheduled']));
    for (let tries = 0; harness.backgroundTasks > 0 && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    const events = await sessionLog.read('s1');
    expect(events.map((event) => event.type)).toContain('dio/task-degraded');
    // The header really went out on every request…
    expect(server.requests.every((request) => request.headers.authorization === AUTHORIZATION)).toBe(true);
    // …and came back in every error body, yet it is nowhere in what the harness recorded.
    const pluginLines = logger.lines.filter((line) => line.fields.plugin === '@troupe/plugin-dio');
    expect(pluginLines.map((line) => line.message)).toEqual(expect.arrayContaining(['dio activePrompt failed', 'dio waitForTerminal failed']));
    expect(JSON.stringify(logger.lines)).not.toContain(TOKEN);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  });
});
