import type { ToolSpec } from '@troupe/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { openAICompatibleModel } from '../src/index.js';
import { chatRequest, chunk, collect, completion, type LoopbackServer, sendJson, sse, startServer, startSse } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const scheduleDio: ToolSpec = { name: 'schedule_dio', description: 'Record a lasting requirement.', parameters: { type: 'object', properties: {} } };
const remember: ToolSpec = {
  name: 'remember',
  description: 'Remember a fact.',
  parameters: { type: 'object', properties: { fact: { type: 'string' } }, required: ['fact'] },
};

describe('tool calls', () => {
  it('offers tools and returns parsed tool calls (bad argument JSON is passed on raw)', async () => {
    server = await startServer((_req, res) =>
      sendJson(
        res,
        200,
        completion(null, {
          finish: 'tool_calls',
          toolCalls: [
            { id: 'call_1', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } },
            { id: 'call_2', type: 'function', function: { name: 'remember', arguments: '{"fact":"likes rain"}' } },
            { id: 'call_3', type: 'function', function: { name: 'remember', arguments: '{"fact":' } },
          ],
        }),
      ),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const response = await model.generate(chatRequest({ tools: [scheduleDio, remember], meta: { stage: 'director', sessionId: 's', turnId: 't' } }));
    expect(response.text).toBe('');
    expect(response.finishReason).toBe('tool-calls');
    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'schedule_dio', arguments: {} },
      { id: 'call_2', name: 'remember', arguments: { fact: 'likes rain' } },
      { id: 'call_3', name: 'remember', arguments: '{"fact":' },
    ]);
    expect(server.requests[0]?.body.tools).toEqual([
      { type: 'function', function: { name: 'schedule_dio', description: 'Record a lasting requirement.', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'remember', description: 'Remember a fact.', parameters: remember.parameters } },
    ]);
  });

  it('sends the assistant tool calls and tool results back in OpenAI form', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('none')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await model.generate(
      chatRequest({
        tools: [scheduleDio],
        messages: [
          { role: 'user', content: 'From now on, be brief.' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'schedule_dio', arguments: {} }] },
          { role: 'tool', toolCallId: 'call_1', content: '{"ok":true}' },
        ],
      }),
    );
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'user', content: 'From now on, be brief.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
    ]);
  });

  it('rejects a tool message without toolCallId before sending anything', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('x')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await expect(model.generate(chatRequest({ messages: [{ role: 'tool', content: '{}' }] }))).rejects.toMatchObject({ code: 'MODEL_BAD_REQUEST' });
    expect(server.requests).toHaveLength(0);
  });

  it('assembles streamed tool call fragments', async () => {
    server = await startServer((_req, res) => {
      startSse(res);
      sse(res, chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'remember', arguments: '' } }] }));
      sse(res, chunk({ tool_calls: [{ index: 0, function: { arguments: '{"fact":' } }] }));
      sse(res, chunk({ tool_calls: [{ index: 0, function: { arguments: '"owns a cat"}' } }] }));
      sse(res, chunk({ tool_calls: [{ index: 1, id: 'call_10', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } }] }));
      sse(res, chunk({}, 'tool_calls'));
      sse(res, '[DONE]');
      res.end();
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const parts = await collect(model.stream!(chatRequest({ tools: [remember, scheduleDio] })));
    expect(parts).toEqual([
      {
        type: 'finish',
        response: {
          text: '',
          finishReason: 'tool-calls',
          toolCalls: [
            { id: 'call_9', name: 'remember', arguments: { fact: 'owns a cat' } },
            { id: 'call_10', name: 'schedule_dio', arguments: {} },
          ],
        },
      },
    ]);
  });
});
