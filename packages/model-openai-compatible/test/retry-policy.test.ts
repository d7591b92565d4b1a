import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, openAICompatibleModel } from '../src/index.js';
import { chatRequest, collect, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('should have failed'),
    (caught: unknown) => caught,
  );
}

describe('bounded, cancellable retries', () => {
  it('a Retry-After beyond the cap fails at once with MODEL_RATE_LIMITED naming the wait', async () => {
    server = await startServer((_req, res) => sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '600' }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 2 }, {});
    const error = (await rejection(model.generate(chatRequest()))) as ModelError;
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error.code).toBe('MODEL_RATE_LIMITED');
    expect(error.status).toBe(429);
    expect(error.message).toContain('600 s');
    expect(error.details).toMatchObject({ retryAfterMs: 600_000, maxRetryAfterMs: 30_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('a 503 with an HTTP-date Retry-After beyond a configured cap fails the stream the same way', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 503, { error: { message: 'maintenance' } }, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3, maxRetryAfterMs: 5_000 }, {});
    const error = (await rejection(collect(model.stream!(chatRequest())))) as ModelError;
    expect(error.code).toBe('MODEL_RATE_LIMITED');
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });

  it('a wait within the cap is honoured, then the retry succeeds', async () => {
    server = await startServer((_req, res, index) =>
      index === 0 ? sendJson(res, 429, { error: { message: 'busy' } }, { 'retry-after': '0' }) : sendJson(res, 200, completion('after the wait')),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 1 }, {});
    expect((await model.generate(chatRequest())).text).toBe('after the wait');
    expect(server.requests).toHaveLength(2);
  });

  it('cancelling during a Retry-After wait rejects with the abort reason at once (generate and stream)', async () => {
    for (const mode of ['generate', 'stream'] as const) {
      const controller = new AbortController();
      const reason = new Error(`player cancelled ${mode}`);
      server = await startServer((_req, res) => {
        sendJson(res, 429, { error: { message: 'busy' } }, { 'retry-after': '25' });
        // The client now sleeps 25 s before its retry; the player cancels meanwhile.
        setImmediate(() => controller.abort(reason));
      });
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 2 }, {});
      const request = chatRequest({ signal: controller.signal });
      const call = mode === 'generate' ? model.generate(request) : collect(model.stream!(request));
      expect(await rejection(call)).toBe(reason);
      expect(server.requests).toHaveLength(1);
      await server.close();
      server = undefined;
    }
  });
});
