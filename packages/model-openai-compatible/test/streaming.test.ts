import type { ChatStreamPart } from '@troupe/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModel } from '../src/index.js';
import { chatRequest, chunk, collect, type LoopbackServer, sse, startServer, startSse } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('SSE streaming', () => {
  it('yields text deltas as they arrive, then exactly one finish with usage', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ role: 'assistant', content: '' }));
      sse(res, chunk({ content: 'Rain ' }));
      sse(res, chunk({ content: 'again, ' }));
      sse(res, chunk({ content: 'detective.' }));
      sse(res, chunk({}, 'stop'));
      sse(res, { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 20, completion_tokens: 5 } });
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const parts = await collect(model.stream!(chatRequest()));
    expect(parts).toEqual<ChatStreamPart[]>([
      { type: 'text-delta', text: 'Rain ' },
      { type: 'text-delta', text: 'again, ' },
      { type: 'text-delta', text: 'detective.' },
      { type: 'finish', response: { text: 'Rain again, detective.', usage: { inputTokens: 20, outputTokens: 5 }, finishReason: 'stop' } },
    ]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('omits stream_options when streamUsage is off and reports no usage when the server sends none', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ content: 'ok' }, 'length'));
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0, streamUsage: false }, {});
    const parts = await collect(model.stream!(chatRequest()));
    expect(parts.at(-1)).toEqual({ type: 'finish', response: { text: 'ok', finishReason: 'length' } });
    expect(server.requests[0]?.body.stream_options).toBeUndefined();
  });
});
