import { ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generateJson, ModelError, openAICompatibleModel } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const Character = z.object({ name: z.string().min(1), mood: z.enum(['calm', 'tense']), intensity: z.int().min(1).max(10) });
const jsonRequest = () => chatRequest({ meta: { stage: 'story/character', sessionId: 's', turnId: 't' } });

describe('JSON output', () => {
  it('sends response_format json_schema and validates the answer with zod', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('{"name":"Lin Mo","mood":"tense","intensity":7}')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const result = await generateJson(model, jsonRequest(), Character, { name: 'character' });
    expect(result.value).toEqual({ name: 'Lin Mo', mood: 'tense', intensity: 7 });
    expect(result.responses).toHaveLength(1);
    expect(result.responses[0]?.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
    const format = server.requests[0]?.body.response_format as { type: string; json_schema: { name: string; schema: { properties: object } } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('character');
    expect(Object.keys(format.json_schema.schema.properties)).toEqual(['name', 'mood', 'intensity']);
  });

  it('sends json_object when structured outputs are off or no schema is given', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('{}')));
    const plain = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0, structuredOutputs: false }, {});
    await plain.generate(chatRequest({ json: { schema: { type: 'object' } } }));
    const any = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await any.generate(chatRequest({ json: true }));
    expect(server.requests.map((request) => request.body.response_format)).toEqual([{ type: 'json_object' }, { type: 'json_object' }]);
  });

  it('makes ONE corrective retry that shows the model its invalid output and the issues', async () => {
    const answers = ['```json\n{"name":"Lin Mo","mood":"furious","intensity":7}\n```', '```json\n{"name":"Lin Mo","mood":"calm","intensity":3}\n```'];
    server = await startServer((_req, res, index) => sendJson(res, 200, completion(answers[index] ?? 'unexpected')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const result = await generateJson(model, jsonRequest(), Character);
    expect(result.value).toEqual({ name: 'Lin Mo', mood: 'calm', intensity: 3 });
    expect(result.responses).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
    const retryMessages = server.requests[1]?.body.messages as { role: string; content: string }[];
    expect(retryMessages).toHaveLength(4);
    // The provider hands back the JSON it found in the fenced answer.
    expect(retryMessages[2]).toEqual({ role: 'assistant', content: '{"name":"Lin Mo","mood":"furious","intensity":7}' });
    expect(retryMessages[3]?.role).toBe('user');
    expect(retryMessages[3]?.content).toContain('mood');
  });

  it('fails with MODEL_JSON_INVALID after the one retry, never a third call', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('not json at all')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    const error = await generateJson(model, jsonRequest(), Character).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('MODEL_JSON_INVALID');
    expect((error as ModelError).details).toMatchObject({ output: 'not json at all' });
    expect(server.requests).toHaveLength(2);
  });

  it('works with any ChatModel (kernel ScriptedChatModel)', async () => {
    const scripted = new ScriptedChatModel({ byStage: { 'story/character': ['{"name":"","mood":"calm","intensity":1}', '{"name":"Su","mood":"calm","intensity":1}'] } });
    const result = await generateJson(scripted, jsonRequest(), Character);
    expect(result.value.name).toBe('Su');
    expect(scripted.calls).toHaveLength(2);
    expect(scripted.calls[0]?.json).toMatchObject({ name: 'output', schema: { type: 'object' } });
  });

  it('does not retry or correct when the signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('stop pressed');
    const scripted = new ScriptedChatModel({
      byStage: {
        'story/character': [
          () => {
            controller.abort(reason);
            return 'not json';
          },
        ],
      },
    });
    await expect(generateJson(scripted, { ...jsonRequest(), signal: controller.signal }, Character)).rejects.toBe(reason);
    expect(scripted.calls).toHaveLength(1);
  });
});
