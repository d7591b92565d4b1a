import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generateJson, openAICompatibleModel } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const Mood = z.object({ name: z.string(), mood: z.enum(['calm', 'tense']) });
const jsonRequest = () => chatRequest({ meta: { stage: 'story/character', sessionId: 's', turnId: 't' } });
const formats = () => server!.requests.map((request) => (request.body.response_format as { type?: string } | undefined)?.type ?? 'none');

describe('the structured output ladder', () => {
  it('steps down to json_object when json_schema is refused (llama.cpp before json_schema support answered 500: ggml-org/llama.cpp#9522) and remembers it', async () => {
    server = await startServer((req, res) => {
      const format = req.body.response_format as { type: string };
      if (format.type !== 'json_object') {
        return sendJson(res, 500, { error: { code: 500, message: `response_format type must be one of "text" or "json_object", but got: ${format.type}`, type: 'server_error' } });
      }
      sendJson(res, 200, completion('{"name":"Lia","mood":"calm"}'));
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await generateJson(model, jsonRequest(), Mood)).value).toEqual({ name: 'Lia', mood: 'calm' });
    expect((await generateJson(model, jsonRequest(), Mood)).value).toEqual({ name: 'Lia', mood: 'calm' });
    expect(formats()).toEqual(['json_schema', 'json_object', 'json_object']);
  });

  it('falls back to the schema in the prompt and takes the first balanced JSON object from prose and fences', async () => {
    // A server that knows neither response_format type (FastAPI-style 422 on the unknown field).
    server = await startServer((req, res) => {
      if (req.body.response_format !== undefined) {
        return sendJson(res, 422, { detail: [{ loc: ['body', 'response_format'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] });
      }
      sendJson(res, 200, completion('Sure! Here is the character {as asked}:\n```json\n{"name":"Lia","mood":"tense","note":"a } in a string"}\n```\nHope this helps.'));
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await generateJson(model, jsonRequest(), Mood)).value).toEqual({ name: 'Lia', mood: 'tense' });
    expect(formats()).toEqual(['json_schema', 'json_object', 'none']);
    const system = (server.requests[2]!.body.messages as { role: string; content: string }[])[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('You are Lin Mo.');
    expect(system.content).toContain('"mood"');
    await generateJson(model, jsonRequest(), Mood);
    expect(formats()).toEqual(['json_schema', 'json_object', 'none', 'none']);
  });

  it('keeps a request without a schema off the json_schema rung (LM Studio refuses json_object: lmstudio-ai/lmstudio-bug-tracker#189)', async () => {
    server = await startServer((req, res) => {
      if ((req.body.response_format as { type: string } | undefined)?.type === 'json_object') {
        return sendJson(res, 400, { error: "'response_format.type' must be 'json_schema' or 'text'" });
      }
      sendJson(res, 200, completion('{"ok":true}'));
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    expect((await model.generate(chatRequest({ json: true }))).text).toBe('{"ok":true}');
    expect(formats()).toEqual(['json_object', 'none']);
  });

  it('uses a fixed level from TROUPE_MODEL_STRUCTURED_OUTPUT and never steps down from it', async () => {
    server = await startServer((_req, res) => sendJson(res, 400, { error: { message: 'json_schema is not supported with this model' } }));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_STRUCTURED_OUTPUT: 'json_schema' });
    const error = await model.generate(chatRequest({ json: { schema: { type: 'object' } } })).catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('MODEL_BAD_REQUEST');
    expect((error as Error).message).toContain('json_schema is not supported with this model');
    expect(formats()).toEqual(['json_schema']);
  });

  it('prompt level from the environment sends no response_format at all', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('{"name":"Lia","mood":"calm"}')));
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_STRUCTURED_OUTPUT: 'prompt' });
    await generateJson(model, jsonRequest(), Mood);
    expect(formats()).toEqual(['none']);
  });

  it('does not step down from a level that worked on an unrelated 400', async () => {
    let calls = 0;
    server = await startServer((_req, res) => {
      calls++;
      if (calls === 1) return sendJson(res, 200, completion('{"name":"Lia","mood":"calm"}'));
      sendJson(res, 400, { error: { message: 'temperature out of range' } });
    });
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await generateJson(model, jsonRequest(), Mood);
    const error = await generateJson(model, jsonRequest(), Mood).catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('MODEL_BAD_REQUEST');
    expect(formats()).toEqual(['json_schema', 'json_schema']);
  });
});
