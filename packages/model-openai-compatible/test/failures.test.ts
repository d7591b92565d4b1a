import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, openAICompatibleModel } from '../src/index.js';
import { chatRequest, closedPort, collect, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ModelError.isInstance(error), String(error)).toBe(true);
  return error as ModelError;
}

describe('errors and retries', () => {
  it('retries a 500 with explicit maxRetries and then succeeds', async () => {
    server = await startServer((_req, res, index) =>
      index === 0 ? sendJson(res, 500, { error: { message: 'overloaded' } }, { 'retry-after-ms': '5' }) : sendJson(res, 200, completion('recovered')),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 2 }, {});
    const response = await model.generate(chatRequest());
    expect(response.text).toBe('recovered');
    expect(server.requests).toHaveLength(2);
  });

  it('stops after maxRetries + 1 attempts with MODEL_SERVER_ERROR', async () => {
    server = await startServer((_req, res) => sendJson(res, 503, { error: { message: 'down' } }, { 'retry-after-ms': '1' }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 1 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_SERVER_ERROR');
    expect(error.status).toBe(503);
    expect(server.requests).toHaveLength(2);
  });

  it('maps 401 to MODEL_UNAUTHORIZED without retrying', async () => {
    server = await startServer((_req, res) => sendJson(res, 401, { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, apiKey: 'wrong', model: 'm', maxRetries: 3 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_UNAUTHORIZED');
    expect(error.status).toBe(401);
    expect(error.modelId).toBe('openai-compatible:m');
    // The server's words, and both places a key comes from (an app's settings, or the environment).
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('the API key set for this model (or TROUPE_MODEL_API_KEY)');
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the server's own message of a 429 that retries did not get past", async () => {
    server = await startServer((_req, res) => sendJson(res, 429, { error: { message: 'You exceeded your current quota, please check your plan and billing details.' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_RATE_LIMITED');
    expect(error.message).toContain('You exceeded your current quota');
  });

  it('maps 404 to MODEL_NOT_FOUND (Ollama wording)', async () => {
    server = await startServer((_req, res) => sendJson(res, 404, { error: { message: 'model "qwen9" not found, try pulling it first' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'qwen9', maxRetries: 0 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_NOT_FOUND');
    expect(error.message).toContain('qwen9');
  });

  it.each([
    ["This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", 'context_length_exceeded'],
    ['the request exceeds the available context size, try increasing it', 'exceed_context_size_error'],
  ])('maps a context overflow to MODEL_CONTEXT_TOO_LONG: %s', async (message, code) => {
    server = await startServer((_req, res) => sendJson(res, 400, { error: { message, code, type: 'invalid_request_error' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await failure(model.generate(chatRequest()))).code).toBe('MODEL_CONTEXT_TOO_LONG');
  });

  it('maps another 400 to MODEL_BAD_REQUEST', async () => {
    server = await startServer((_req, res) => sendJson(res, 400, { error: { message: 'temperature out of range' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await failure(model.generate(chatRequest()))).code).toBe('MODEL_BAD_REQUEST');
  });

  it('reports an unreachable server as MODEL_UNREACHABLE (generate and stream)', async () => {
    const port = await closedPort();
    const model = openAICompatibleModel({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 0 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_UNREACHABLE');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect((await failure(collect(model.stream!(chatRequest())))).code).toBe('MODEL_UNREACHABLE');
  });

  it('reports a server that never answers as MODEL_TIMEOUT', async () => {
    server = await startServer(() => {
      // never answers
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0, timeoutMs: 50 }, {});
    expect((await failure(model.generate(chatRequest()))).code).toBe('MODEL_TIMEOUT');
  });

  it('does not send a request that timed out again: a server that needs longer gets the whole wait once', async () => {
    server = await startServer(() => {
      // never answers
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3, timeoutMs: 80 }, {});
    const error = await failure(model.generate(chatRequest()));
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a response without choices as MODEL_RESPONSE_INVALID', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { choices: [] }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await failure(model.generate(chatRequest()))).code).toBe('MODEL_RESPONSE_INVALID');
  });

  it('rejects incomplete configuration with MODEL_CONFIG_INVALID naming the problem', () => {
    try {
      openAICompatibleModel({ baseURL: 'http://127.0.0.1:1/v1' }, {});
      expect.unreachable('should have thrown');
    } catch (error) {
      expect((error as ModelError).code).toBe('MODEL_CONFIG_INVALID');
      expect((error as ModelError).message).toContain('model');
    }
    expect(() => openAICompatibleModel({ baseURL: 'ftp://x', model: 'm' }, {})).toThrow(/baseURL/);
    expect(() => openAICompatibleModel({ model: 'm', maxRetries: -1 }, { TROUPE_MODEL_BASE_URL: 'http://127.0.0.1:1' })).toThrow(ModelError);
  });

  it('refuses a base URL with a password or a query string, without repeating the secret', () => {
    for (const baseURL of ['http://bob:hunter2pass@127.0.0.1:1/v1', 'http://127.0.0.1:1/v1?api_key=sk-URLKEY-777', 'http://127.0.0.1:1/v1#frag']) {
      try {
        openAICompatibleModel({ baseURL, model: 'm' }, {});
        expect.unreachable(`should have refused ${baseURL}`);
      } catch (error) {
        expect((error as ModelError).code).toBe('MODEL_CONFIG_INVALID');
        expect((error as ModelError).message).toMatch(/baseURL/);
        expect((error as ModelError).message).not.toMatch(/hunter2pass|sk-URLKEY-777/);
      }
    }
  });
});
