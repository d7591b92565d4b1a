import type { ToolSpec } from '@troupe/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, openAICompatibleModel } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools: ToolSpec[] = [{ name: 'schedule_dio', description: 'Record a lasting requirement.', parameters: { type: 'object', properties: {} } }];
const withTools = () => chatRequest({ tools, meta: { stage: 'director', sessionId: 's', turnId: 't' } });

describe('tool calling capability', () => {
  it('learns from Ollama\'s "does not support tools" (ollama/ollama#6027): MODEL_TOOLS_UNSUPPORTED, capabilities.tools false, no further tool requests', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 400, { error: { message: 'registry.ollama.ai/library/gemma3:4b does not support tools', type: 'api_error', param: null, code: null } }),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'gemma3:4b', maxRetries: 0 }, {});
    expect(model.capabilities).toEqual({});
    const first = await model.generate(withTools()).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(first)).toBe(true);
    expect((first as ModelError).code).toBe('MODEL_TOOLS_UNSUPPORTED');
    expect((first as ModelError).message).toContain('does not support tools');
    expect(model.capabilities).toEqual({ tools: false });
    const second = await model.generate(withTools()).catch((caught: unknown) => caught);
    expect((second as ModelError).code).toBe('MODEL_TOOLS_UNSUPPORTED');
    expect(server.requests).toHaveLength(1);
  });

  it('learns that tools work from a tool call', async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 200, completion(null, { toolCalls: [{ id: 'c1', type: 'function', function: { name: 'schedule_dio', arguments: '{}' } }], finish: 'tool_calls' })),
    );
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, {});
    await model.generate(withTools());
    expect(model.capabilities).toEqual({ tools: true });
  });

  it('TROUPE_MODEL_TOOLS=off: capabilities.tools false and nothing is sent; =on: reported as supported', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('none')));
    const off = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_TOOLS: 'off' });
    expect(off.capabilities).toEqual({ tools: false });
    expect(((await off.generate(withTools()).catch((caught: unknown) => caught)) as ModelError).code).toBe('MODEL_TOOLS_UNSUPPORTED');
    expect(server.requests).toHaveLength(0);
    // Requests without tools still work.
    expect((await off.generate(chatRequest())).text).toBe('none');
    const on = openAICompatibleModel({ baseURL: server.baseURL, model: 'm', maxRetries: 0 }, { TROUPE_MODEL_TOOLS: 'on' });
    expect(on.capabilities).toEqual({ tools: true });
  });
});
