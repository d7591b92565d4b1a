import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModel } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('plain completion', () => {
  it('sends the OpenAI wire format and returns text, usage and finish reason', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('Evening, stranger.')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, apiKey: 'sk-test', model: 'qwen2.5', maxRetries: 0 }, {});
    const response = await model.generate(chatRequest({ temperature: 0.3, maxOutputTokens: 64, topP: 0.9, frequencyPenalty: 0.4, presencePenalty: -0.5 }));
    expect(model.id).toBe('openai-compatible:qwen2.5');
    expect(response).toEqual({ text: 'Evening, stranger.', usage: { inputTokens: 11, outputTokens: 7 }, finishReason: 'stop' });
    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe('Bearer sk-test');
    expect(received?.body).toMatchObject({
      model: 'qwen2.5',
      temperature: 0.3,
      max_tokens: 64,
      top_p: 0.9,
      frequency_penalty: 0.4,
      presence_penalty: -0.5,
      messages: [
        { role: 'system', content: 'You are Lin Mo.' },
        { role: 'user', content: 'Hello?' },
      ],
    });
    expect(received?.body.stream).toBeUndefined();
    expect(received?.body.response_format).toBeUndefined();
  });

  it('reads base URL, key and model from the environment, with extra headers and body fields', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('ok')));
    const env = { TROUPE_MODEL_BASE_URL: `${server.baseURL}/`, TROUPE_MODEL_API_KEY: 'env-key', TROUPE_MODEL: 'llama3' };
    const model = openAICompatibleModel({ maxRetries: 0, headers: { 'x-troupe': '1' }, extraBody: { keep_alive: '5m' }, temperature: 0.9 }, env);
    await model.generate(chatRequest());
    expect(model.id).toBe('openai-compatible:llama3');
    const [received] = server.requests;
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe('Bearer env-key');
    expect(received?.headers['x-troupe']).toBe('1');
    expect(received?.body).toMatchObject({ model: 'llama3', keep_alive: '5m', temperature: 0.9 });
  });

  it('drops speaker names the OpenAI format rejects and keeps ASCII ones', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('ok')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await model.generate(
      chatRequest({
        messages: [
          { role: 'user', content: 'hi', name: 'player_1' },
          { role: 'assistant', content: '你好', name: '林默' },
        ],
      }),
    );
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'user', content: 'hi', name: 'player_1' },
      { role: 'assistant', content: '你好' },
    ]);
  });
});
