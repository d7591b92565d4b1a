import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, openAICompatibleModel } from '../src/index.js';
import { chatRequest, chunk, collect, type LoopbackServer, sse, startServer, startSse } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('abort', () => {
  it('abort mid-stream rejects with the reason: no retry, no further parts, connection closed', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'The rain ' }));
      // then hold the stream open until the client hangs up
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3 }, {});
    const controller = new AbortController();
    const reason = new Error('player pressed stop');
    const parts: unknown[] = [];
    const consume = (async () => {
      for await (const part of model.stream!(chatRequest({ signal: controller.signal }))) {
        parts.push(part);
        controller.abort(reason);
      }
    })();
    await expect(consume).rejects.toBe(reason);
    expect(parts).toEqual([{ type: 'text-delta', text: 'The rain ' }]);
    await server.closed[0];
    expect(server.requests).toHaveLength(1);
  });

  it('abort while waiting for a non-streaming answer rejects with the reason and is not retried', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    server = await startServer(() => arrived());
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3 }, {});
    const controller = new AbortController();
    const reason = new DOMException('stopped', 'AbortError');
    const call = model.generate(chatRequest({ signal: controller.signal }));
    await requestArrived;
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await server.closed[0];
    expect(server.requests).toHaveLength(1);
  });

  it('an already-aborted signal sends nothing', async () => {
    server = await startServer(() => undefined);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm' }, {});
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(model.generate(chatRequest({ signal: controller.signal }))).rejects.toThrow('gone');
    await expect(collect(model.stream!(chatRequest({ signal: controller.signal })))).rejects.toThrow('gone');
    expect(server.requests).toHaveLength(0);
  });
});

describe('malformed streams', () => {
  async function streamFailure(write: Parameters<typeof startServer>[0], options: { streamIdleTimeoutMs?: number } = {}) {
    server = await startServer(write);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 2, ...options }, {});
    const parts: unknown[] = [];
    const error = await (async () => {
      for await (const part of model.stream!(chatRequest())) parts.push(part);
    })().catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error), String(error)).toBe(true);
    return { error: error as ModelError, parts };
  }

  it('a data line that is not JSON → MODEL_STREAM_MALFORMED, after the text already yielded', async () => {
    const { error, parts } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'Hello' }));
      sse(res, '{"choices": [ this is not json');
      res.end();
    });
    expect(error.code).toBe('MODEL_STREAM_MALFORMED');
    expect(parts).toEqual([{ type: 'text-delta', text: 'Hello' }]);
    expect(server?.requests).toHaveLength(1);
  });

  it('a chunk without the OpenAI shape → MODEL_STREAM_MALFORMED with the chunk in details', async () => {
    const { error } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, { choices: 'nope' });
      res.end();
    });
    expect(error.code).toBe('MODEL_STREAM_MALFORMED');
    expect(error.details).toEqual({ chunk: { choices: 'nope' } });
  });

  it('a stream that ends before anything arrived → MODEL_STREAM_MALFORMED', async () => {
    const { error, parts } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, chunk({ role: 'assistant' }));
      sse(res, '[DONE]');
      res.end();
    });
    expect(error.code).toBe('MODEL_STREAM_MALFORMED');
    expect(parts).toHaveLength(0);
  });

  it('an error event inside the stream → MODEL_SERVER_ERROR', async () => {
    const { error } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, { error: { message: 'CUDA out of memory' } });
      res.end();
    });
    expect(error.code).toBe('MODEL_SERVER_ERROR');
    expect(error.message).toContain('CUDA out of memory');
  });

  it("a stream the server's content filter ended before any text → MODEL_CONTENT_FILTERED, saying so", async () => {
    const { error } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, chunk({ role: 'assistant' }));
      sse(res, chunk({}, 'content_filter'));
      sse(res, '[DONE]');
      res.end();
    });
    expect(error.code).toBe('MODEL_CONTENT_FILTERED');
    expect(error.message).toContain('content filter');
  });

  it('a server that drops the connection mid-answer → MODEL_SERVER_ERROR saying so (not "terminated")', async () => {
    const { error, parts } = await streamFailure((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'The rain ' }));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(error.code).toBe('MODEL_SERVER_ERROR');
    expect(error.message).toContain('closed the connection before the answer was complete');
    expect(parts).toEqual([{ type: 'text-delta', text: 'The rain ' }]);
  });

  it('a stream that goes silent → MODEL_TIMEOUT after the idle timeout', async () => {
    const { error, parts } = await streamFailure(
      (_req, res) => {
        startSse(res);
        sse(res, chunk({ content: 'Wait' }));
      },
      { streamIdleTimeoutMs: 50 },
    );
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(parts).toHaveLength(1);
  });
});

describe('stream idle timeout', () => {
  it('the first token may take as long as the request timeout (a model loading, a long prompt being read); after it the idle timeout applies', async () => {
    server = await startServer(async (_req, res) => {
      // Headers at once, as llama.cpp and vLLM send them, then a long silence before the first token.
      startSse(res);
      sse(res, chunk({ role: 'assistant' }));
      await new Promise((resolve) => setTimeout(resolve, 400));
      sse(res, chunk({ content: 'Finally.' }));
      sse(res, chunk({}, 'stop'));
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', streamIdleTimeoutMs: 100, timeoutMs: 5_000 }, {});
    const parts = await collect(model.stream!(chatRequest()));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', response: { text: 'Finally.' } });
  });

  it('no first token within the request timeout → MODEL_TIMEOUT naming the setting, and the request is not sent again', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      res.flushHeaders();
      sse(res, chunk({ role: 'assistant' }));
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', streamIdleTimeoutMs: 5_000, timeoutMs: 150, maxRetries: 3 }, {});
    const error = (await collect(model.stream!(chatRequest())).catch((caught: unknown) => caught)) as ModelError;
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(error.message).toContain('TROUPE_MODEL_TIMEOUT_MS');
    expect(server.requests).toHaveLength(1);
  });

  it('a slow but alive stream (each gap shorter than the idle timeout, the whole stream longer) is read to the end', async () => {
    const gaps = 8;
    server = await startServer(async (_req, res) => {
      startSse(res);
      for (let index = 0; index < gaps; index++) {
        sse(res, chunk({ content: `${index} ` }));
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      sse(res, chunk({}, 'stop'));
      sse(res, '[DONE]');
      res.end();
    });
    // 8 gaps of 150 ms: the stream lasts longer than the idle timeout, no single gap does.
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', streamIdleTimeoutMs: 800 }, {});
    const parts = await collect(model.stream!(chatRequest()));
    const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
    expect(text).toBe('0 1 2 3 4 5 6 7 ');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', response: { text: '0 1 2 3 4 5 6 7 ', finishReason: 'stop' } });
  });

  it('a cancel while waiting on a silent stream rejects with the cancel reason (not MODEL_TIMEOUT) and closes the connection', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'Wait' }));
    });
    // An idle timeout far beyond the test's own timeout: only the cancel can end this stream in time.
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', streamIdleTimeoutMs: 3_600_000 }, {});
    const controller = new AbortController();
    const reason = new DOMException('player pressed stop', 'AbortError');
    const parts: unknown[] = [];
    const consume = (async () => {
      for await (const part of model.stream!(chatRequest({ signal: controller.signal }))) {
        parts.push(part);
        // Cancel after the consumer asked for the next chunk, while the stream is silent.
        setImmediate(() => controller.abort(reason));
      }
    })();
    await expect(consume).rejects.toBe(reason);
    expect(parts).toEqual([{ type: 'text-delta', text: 'Wait' }]);
    await server.closed[0];
  });
});
