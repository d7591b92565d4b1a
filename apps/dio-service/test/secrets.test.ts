import { createHarness, type LogFields, type Logger } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore, ScriptedChatModel } from '@troupe/kernel/testing';
import { DioClient, dioPlugin } from '@troupe/plugin-dio';
import { describe, expect, it } from 'vitest';
import { ADMIN, call, closeAfterEach, registerLia, startTestService, TOKENS } from './helpers/test-service.js';

type Line = { level: string; message: string; fields: LogFields };
function recordingLogger(lines: Line[] = [], bindings: LogFields = {}): Logger & { lines: Line[] } {
  const at = (level: string) => (message: string, fields: LogFields = {}) => void lines.push({ level, message, fields: { ...bindings, ...fields } });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (more) => recordingLogger(lines, { ...bindings, ...more }) };
}

const where = '?userId=alice&conversationId=c1&targetPromptId=lia-character';
const track = closeAfterEach();

describe('bearer tokens never reach the logs', () => {
  it("the service's request and task logs carry no token, across successes, 401/403s and internal errors", async () => {
    const serviceLogger = recordingLogger();
    const trees = new MemoryTreeStore();
    const running = track(await startTestService({ trees, logger: serviceLogger }));
    await registerLia(running.url);
    const url = running.url;
    // A plugin-side client in a turn, with its own logger, talking to the service.
    const pluginLogger = recordingLogger();
    const harness = track(await createHarness({
      plugins: [dioPlugin({ baseUrl: url, targetPromptId: 'lia-character', pollIntervalMs: 20 })],
      model: new ScriptedChatModel({ byStage: { director: [{ text: '', toolCalls: [{ id: 'c', name: 'schedule_dio', arguments: {} }] }, 'none'] } }),
      sessionLog: new MemorySessionLog(),
      logger: pluginLogger,
      scenario: { preActorDirector: true },
    }));
    await harness.runTurn({ sessionId: 'c1', turnId: 't1', userId: 'alice', authorization: `Bearer ${TOKENS.alice}`, text: '从现在起莉娅都用短句回答。' });
    for (let tries = 0; harness.backgroundTasks > 0 && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(serviceLogger.lines.map((line) => line.message)).toContain('task finished');

    // Refusals: unknown token, another user's token, a user token on the admin route.
    expect((await call(url, 'GET', `/v1/director/active-prompt${where}`, 'wrong-token-9876543210')).status).toBe(401);
    expect((await call(url, 'GET', `/v1/director/active-prompt${where}`, TOKENS.bob)).status).toBe(403);
    expect((await call(url, 'PUT', '/v1/prompts/lia-character', TOKENS.alice, { content: 'x' })).status).toBe(403);
    // Internal errors are logged (with method and path), still without the token.
    const read = trees.read.bind(trees);
    trees.read = async (id) => {
      if (id.startsWith('conv-')) throw Object.assign(new Error('disk gone'), { code: 'STORAGE_IO' });
      return read(id);
    };
    expect((await call(url, 'GET', `/v1/director/active-prompt${where}`, TOKENS.alice)).status).toBe(500);
    const failed = serviceLogger.lines.filter((line) => line.message === 'request failed');
    expect(failed).toHaveLength(1);
    // A plugin-side lookup that fails (500) logs one line on the plugin side, also without the token.
    const client = new DioClient(url, 2_000, { logger: pluginLogger });
    await expect(client.activePrompt({ userId: 'alice', rpConversationId: 'c1', targetPromptId: 'lia-character', userAuthorization: `Bearer ${TOKENS.alice}` }, { timeoutMs: 1_000 })).rejects.toMatchObject({
      code: 'DIO_HTTP_TRANSIENT',
    });
    expect(pluginLogger.lines.some((line) => line.message === 'dio activePrompt failed')).toBe(true);

    const logged = JSON.stringify([serviceLogger.lines, pluginLogger.lines]);
    for (const secret of [TOKENS.alice, TOKENS.bob, ADMIN, 'wrong-token-9876543210']) expect(logged).not.toContain(secret);
  });
});
