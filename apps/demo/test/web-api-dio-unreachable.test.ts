import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshId, playTurn } from './support/api-client.js';
import { type FakeDio, type FakeDioMode, startFakeDio } from './support/fake-dio.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// The DIO view must keep showing what the session log knows (the task's status from its `dio/*`
// events) when the service misbehaves, and say separately that the service could not be reached.

let dio: FakeDio;
beforeAll(async () => {
  dio = await startFakeDio();
});
afterAll(async () => {
  await dio.close();
});

const fx = setupWebFixture({ env: () => ({ DIO_URL: dio.url, DIO_TOKEN: 'fake-token-123' }) });

describe('GET /api/sessions/:id/dio when the DIO service misbehaves', () => {
  it.each<[FakeDioMode, string]>([
    ['http500', 'DIO_UNAVAILABLE'],
    ['badjson', 'DIO_INVALID_RESPONSE'],
    ['wronghash', 'DIO_INVALID_RESPONSE'],
    ['reset', 'DIO_UNAVAILABLE'],
    ['hang', 'DIO_UNAVAILABLE'],
  ])('%s → 200 with the local task status and service.reachable false (%s)', async (mode, code) => {
    dio.mode = 'ok';
    const sessionId = freshId('dio-down');
    await playTurn(fx.server.url, sessionId, '从现在起莉娅都用短句回答，少用比喻。');
    dio.mode = mode;
    const view = await fx.api('GET', `/api/sessions/${sessionId}/dio`);
    expect(view.status).toBe(200);
    expect(view.body.task).toMatchObject({ status: 'processing', requestId: expect.stringMatching(/:dio$/) });
    expect(view.body.service).toMatchObject({ reachable: false, error: { code } });
    expect(view.body.service.error.message).toContain(dio.url);
    expect(view.body.activePrompt).toBeNull();
    expect(view.body.requirements).toEqual([]);
  }, 30_000);

  it('a healthy service → service.reachable true', async () => {
    dio.mode = 'ok';
    const sessionId = freshId('dio-ok');
    await playTurn(fx.server.url, sessionId, '你好');
    const view = await fx.api('GET', `/api/sessions/${sessionId}/dio`);
    expect(view.status).toBe(200);
    expect(view.body.service).toEqual({ reachable: true });
    expect(view.body.activePrompt).toMatchObject({ versionId: 'v1', hashVerified: true });
  }, 30_000);
});
