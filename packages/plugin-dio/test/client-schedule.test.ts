import { afterEach, describe, expect, it } from 'vitest';
import { DioClient, DioError } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';
import { recordingLogger } from './helpers/recording-logger.js';

const INPUT = {
  actorTurnRequestId: 'rp-turn-101',
  userId: 'user-42',
  rpConversationId: 'conversation-8',
  targetPromptId: 'lia-character',
  instruction: '从现在起莉娅都用短句回答，少用比喻。',
  language: 'zh',
  userAuthorization: 'Bearer secret-token-of-user-42',
};

const GOOD_ACCEPTANCE = {
  ok: true,
  accepted: true,
  conversationId: 'dio_conversation-8',
  targetPromptId: 'lia-character',
  taskMessageId: 'rp-turn-101:dio:assistant',
  requestId: 'rp-turn-101:dio',
};

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('DioClient.schedule', () => {
  it('posts the derived ids and the raw input, forwards the authorization header, and returns the acceptance', async () => {
    server = await startLoopbackServer(() => ({ status: 202, json: GOOD_ACCEPTANCE }));
    const logger = recordingLogger();
    const client = new DioClient(server.url, 2_000, { logger });
    const accepted = await client.schedule(INPUT);
    expect(accepted).toEqual({
      accepted: true,
      dioConversationId: 'dio_conversation-8',
      requestId: 'rp-turn-101:dio',
      taskMessageId: 'rp-turn-101:dio:assistant',
      appliesFrom: 'next_turn',
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/chat');
    expect(request?.headers.authorization).toBe(INPUT.userAuthorization);
    expect(JSON.parse(request?.body ?? '')).toEqual({
      conversationId: 'dio_conversation-8',
      requestId: 'rp-turn-101:dio',
      messageId: 'rp-turn-101:dio:assistant',
      userId: 'user-42',
      rpConversationId: 'conversation-8',
      targetPromptId: 'lia-character',
      message: INPUT.instruction,
      language: 'zh',
    });
    // Exactly one log line, and the secret never appears in it.
    expect(logger.lines).toHaveLength(1);
    expect(JSON.stringify(logger.lines)).not.toContain('secret-token');
  });

  it.each([
    ['conversationId', 'dio_other'],
    ['targetPromptId', 'other-character'],
    ['taskMessageId', 'rp-turn-999:dio:assistant'],
    ['requestId', 'rp-turn-999:dio'],
  ])('rejects an acceptance whose %s differs from the submission', async (field, value) => {
    server = await startLoopbackServer(() => ({ status: 202, json: { ...GOOD_ACCEPTANCE, [field]: value } }));
    const logger = recordingLogger();
    const client = new DioClient(server.url, 2_000, { logger });
    const error = await client.schedule(INPUT).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error) && error.code).toBe('DIO_IDENTITY_MISMATCH');
    expect((error as DioError).failureClass).toBe('permanent');
    expect(server.requests).toHaveLength(1);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });

  it.each([
    [{ ok: false, accepted: true }],
    [{ ok: true, accepted: false }],
    [{ accepted: true }],
  ])('rejects an acceptance without ok/accepted true: %j', async (patch) => {
    const body: Record<string, unknown> = { ...GOOD_ACCEPTANCE, ...patch };
    if (!('ok' in patch)) delete body.ok;
    server = await startLoopbackServer(() => ({ status: 202, json: body }));
    const error = await new DioClient(server.url, 2_000).schedule(INPUT).catch((caught: unknown) => caught);
    expect(DioError.isInstance(error) && error.code).toBe('DIO_INVALID_RESPONSE');
  });

  it('refuses ids the wire format does not allow, before any request', async () => {
    server = await startLoopbackServer(() => ({ status: 202, json: GOOD_ACCEPTANCE }));
    const client = new DioClient(server.url, 2_000);
    for (const bad of ['../x', 'a b', '', 'a/b', 'x?y']) {
      const error = await client.schedule({ ...INPUT, rpConversationId: bad }).catch((caught: unknown) => caught);
      expect(DioError.isInstance(error) && error.code).toBe('DIO_INVALID_REQUEST');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a base URL that is not http(s) and a non-positive timeout', () => {
    expect(() => new DioClient('file:///etc/passwd', 1000)).toThrow(/http/);
    expect(() => new DioClient('http://127.0.0.1:1', 0)).toThrow(/requestTimeoutMs/);
  });
});
