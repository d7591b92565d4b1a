import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, openAICompatibleModel } from '../src/index.js';
import { readServerError } from '../src/server-error.js';
import { chatRequest, collect, type LoopbackServer, startServer } from './loopback-server.js';

// Each server's own error body, as its docs or issues show it; the player must see what the
// server said, never "400 status code (no body)" (huggingface/chat-ui#1343 shows that for vLLM).

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SHAPES: readonly { server: string; source: string; status: number; body: string; message: string; code: string }[] = [
  {
    server: 'OpenAI',
    source: 'platform.openai.com/docs/guides/error-codes',
    status: 400,
    body: JSON.stringify({ error: { message: "Invalid value for 'temperature': expected at most 2.", type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } }),
    message: "Invalid value for 'temperature': expected at most 2.",
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'vLLM before 0.10.1',
    source: 'vllm-project/vllm#12886',
    status: 400,
    body: JSON.stringify({
      object: 'error',
      message: "This model's maximum context length is 2048 tokens. However, you requested 2723 tokens (1699 in the messages, 1024 in the completion).",
      type: 'BadRequestError',
      param: null,
      code: 400,
    }),
    message: "This model's maximum context length is 2048 tokens",
    code: 'MODEL_CONTEXT_TOO_LONG',
  },
  {
    server: 'vLLM 0.10.1 and later',
    source: 'foundation-model-stack/fms-guardrails-orchestrator#511 (vllm-project/vllm#22099)',
    status: 400,
    body: JSON.stringify({ error: { message: 'Invalid "top_k" value: -3', type: 'BadRequestError', param: null, code: 400 } }),
    message: 'Invalid "top_k" value: -3',
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'llama.cpp server',
    source: 'ggml-org/llama.cpp tools/server, server-context.cpp (exceed_context_size_error)',
    status: 400,
    body: JSON.stringify({
      error: { code: 400, message: 'request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 9412, n_ctx: 8192 },
    }),
    message: 'request (9412 tokens) exceeds the available context size (8192 tokens)',
    code: 'MODEL_CONTEXT_TOO_LONG',
  },
  {
    server: 'Ollama (native shape)',
    source: 'ollama/ollama#14795',
    status: 400,
    body: JSON.stringify({ error: 'registry.ollama.ai/library/qwen3.5:0.8b does not support thinking' }),
    message: 'registry.ollama.ai/library/qwen3.5:0.8b does not support thinking',
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'Ollama /v1',
    source: 'ollama/ollama#6027',
    status: 404,
    body: JSON.stringify({ error: { message: 'model "qwen9" not found, try pulling it first', type: 'api_error', param: null, code: null } }),
    message: 'model "qwen9" not found, try pulling it first',
    code: 'MODEL_NOT_FOUND',
  },
  {
    server: 'LM Studio',
    source: 'lmstudio-ai/lmstudio-bug-tracker#169',
    status: 400,
    body: JSON.stringify({ error: "'response_format.type' must be 'json_schema'" }),
    message: "'response_format.type' must be 'json_schema'",
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'Mistral (422 validation)',
    source: 'Gage-Technologies/mistral-go#3',
    status: 422,
    body: JSON.stringify({
      object: 'error',
      message: { detail: [{ type: 'extra_forbidden', loc: ['body', 'messages', 0, 'user', 'name'], msg: 'Extra inputs are not permitted', input: '' }] },
      type: 'invalid_request_error',
      param: null,
      code: null,
    }),
    message: 'body.messages.0.user.name: Extra inputs are not permitted',
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'Mistral (error object with detail)',
    source: 'partITech/php-mistral#76',
    status: 400,
    body: JSON.stringify({
      object: 'Error',
      detail: [{ type: 'extra_forbidden', loc: ['body', 'tools'], msg: 'Extra inputs are not permitted', input: [] }],
      message: [{ type: 'extra_forbidden', loc: ['body', 'tools'], msg: 'Extra inputs are not permitted', input: [] }],
      type: 'invalid_request_error',
      code: 3001,
    }),
    message: 'body.tools: Extra inputs are not permitted',
    code: 'MODEL_BAD_REQUEST',
  },
  {
    server: 'a gateway answering with HTML',
    source: 'nginx default error page',
    status: 502,
    body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
    message: '502 Bad Gateway',
    code: 'MODEL_SERVER_ERROR',
  },
];

describe('the server’s own error message', () => {
  it.each(SHAPES)('$server ($source) → $code with the message', async (shape) => {
    server = await startServer((_req, res) => {
      res.writeHead(shape.status, { 'content-type': shape.body.startsWith('<') ? 'text/html' : 'application/json' });
      res.end(shape.body);
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    for (const call of [() => model.generate(chatRequest()), () => collect(model.stream!(chatRequest()))]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(ModelError.isInstance(error), String(error)).toBe(true);
      expect((error as ModelError).code).toBe(shape.code);
      expect((error as ModelError).status).toBe(shape.status);
      expect((error as ModelError).message).toContain(shape.message);
      expect((error as ModelError).message).not.toContain('(no body)');
    }
  });

  it('reads every shape directly, and returns nothing for an empty body', () => {
    for (const shape of SHAPES) expect(readServerError(shape.body)?.message).toContain(shape.message);
    expect(readServerError('   ')).toBeUndefined();
    expect(readServerError('upstream connect error')?.message).toBe('upstream connect error');
    expect(readServerError(JSON.stringify({ detail: 'Not authenticated' }))?.message).toBe('Not authenticated');
    expect(readServerError('x'.repeat(5000))?.message.length).toBeLessThanOrEqual(600);
  });

  it('a 200 web page (a login page, a chat UI at the base URL) → MODEL_RESPONSE_INVALID saying the base URL is not the API, sent once', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Sign in · Open WebUI</title></head><body>…</body></html>');
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 3 }, {});
    for (const call of [() => model.generate(chatRequest()), () => collect(model.stream!(chatRequest()))]) {
      const error = (await call().catch((caught: unknown) => caught)) as ModelError;
      expect(error.code).toBe('MODEL_RESPONSE_INVALID');
      expect(error.message).toContain('a web page ("Sign in · Open WebUI")');
      expect(error.message).toContain('/v1');
    }
    expect(server.requests).toHaveLength(2);
  });
});
