import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModel } from '../src/index.js';
import { chatRequest, chunk, collect, type LoopbackServer, sendJson, sse, startServer, startSse } from './loopback-server.js';

// Emulations of streams real servers and gateways send; each cites what it follows.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function finish(parts: Awaited<ReturnType<typeof collect>>) {
  const last = parts.at(-1) as { type: string; response?: { text: string; finishReason?: string; usage?: unknown } };
  expect(last.type).toBe('finish');
  return last.response!;
}

describe('streams without a proper finish', () => {
  it('accepts a stream that sends [DONE] without any finish_reason (LiteLLM proxy, BerriAI/liteLLM-proxy#19)', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      // The proxy drops `finish_reason` when it is null, and never sends a last chunk with one.
      sse(res, { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'The harbour ' } }] });
      sse(res, { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'is quiet.' } }] });
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const response = finish(await collect(model.stream!(chatRequest())));
    expect(response.text).toBe('The harbour is quiet.');
    expect(response.finishReason).toBeUndefined();
  });

  it('accepts a stream that just ends after content, without [DONE] or a finish reason (gateways)', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'Lia nods.' }));
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect(finish(await collect(model.stream!(chatRequest()))).text).toBe('Lia nods.');
  });

  it('reads finish_reason "" as no reason (Ollama, ollama/ollama#4357; SGLang, sgl-project/sglang#3912)', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ role: 'assistant', content: ' Hello' }, ''));
      sse(res, chunk({ content: ' there' }, ''));
      sse(res, chunk({}, 'stop'));
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const response = finish(await collect(model.stream!(chatRequest())));
    expect(response.text).toBe(' Hello there');
    expect(response.finishReason).toBe('stop');
  });

  it('takes usage from a usage-only chunk, with `choices: []` (OpenAI include_usage) or without choices (gateways)', async () => {
    for (const usageChunk of [
      { id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 31, completion_tokens: 4 } },
      { id: 'c', object: 'chat.completion.chunk', usage: { prompt_tokens: 31, completion_tokens: 4 } },
    ]) {
      server = await startServer((_req, res) => {
        startSse(res);
        sse(res, chunk({ content: 'Yes.' }, 'stop'));
        sse(res, usageChunk);
        sse(res, '[DONE]');
        res.end();
      });
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
      expect(finish(await collect(model.stream!(chatRequest()))).usage).toEqual({ inputTokens: 31, outputTokens: 4 });
      await server.close();
      server = undefined;
    }
  });
});

describe('a server that rejects stream_options', () => {
  // Mistral's API answers 422 with this body to `stream_options` (dnakov/anon-kode#53).
  const mistral422 = {
    object: 'error',
    message: {
      detail: [
        {
          type: 'extra_forbidden',
          loc: ['body', 'stream_options', 'include_usage'],
          msg: 'Extra inputs are not permitted',
          input: true,
          url: 'https://errors.pydantic.dev/2.10/v/extra_forbidden',
        },
      ],
    },
    type: 'invalid_request_error',
    param: null,
    code: null,
  };
  const mistral = () =>
    startServer((req, res) => {
      if (req.body.stream_options !== undefined) return sendJson(res, 422, mistral422);
      startSse(res);
      sse(res, chunk({ content: 'Bonjour.' }, 'stop'));
      sse(res, { id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } });
      sse(res, '[DONE]');
      res.end();
    });

  it('is retried once without it, and the model remembers: later streams do not send it', async () => {
    server = await mistral();
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'mistral-small-latest', maxRetries: 0 }, {});
    const first = finish(await collect(model.stream!(chatRequest())));
    expect(first.text).toBe('Bonjour.');
    expect(first.usage).toEqual({ inputTokens: 9, outputTokens: 2 });
    expect(server.requests.map((request) => request.body.stream_options)).toEqual([{ include_usage: true }, undefined]);
    await collect(model.stream!(chatRequest()));
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]?.body.stream_options).toBeUndefined();
  });

  it('with TROUPE_MODEL_STREAM_USAGE=on the field is always sent and the 422 surfaces with the server message', async () => {
    server = await mistral();
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_STREAM_USAGE: 'on' });
    const error = await collect(model.stream!(chatRequest())).catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('MODEL_BAD_REQUEST');
    expect((error as Error).message).toContain('body.stream_options.include_usage: Extra inputs are not permitted');
    expect(server.requests).toHaveLength(1);
  });

  it('with TROUPE_MODEL_STREAM_USAGE=off the field is never sent', async () => {
    server = await mistral();
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_STREAM_USAGE: 'off' });
    expect(finish(await collect(model.stream!(chatRequest()))).text).toBe('Bonjour.');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.stream_options).toBeUndefined();
  });

  it('does not retry a stream whose 400 is not about stream_options once the field is known to work', async () => {
    let calls = 0;
    server = await startServer((_req, res) => {
      calls++;
      if (calls === 1) {
        startSse(res);
        sse(res, chunk({ content: 'ok' }, 'stop'));
        res.end();
        return;
      }
      sendJson(res, 400, { error: { message: 'temperature must be at most 2', type: 'invalid_request_error' } });
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await collect(model.stream!(chatRequest()));
    const error = await collect(model.stream!(chatRequest())).catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('MODEL_BAD_REQUEST');
    expect(server.requests).toHaveLength(2);
  });
});
