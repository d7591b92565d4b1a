import { KernelError } from '@troupe/kernel';
import { ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, modelRegistryFromEnv, openAICompatibleRegistry } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('model registry', () => {
  it('resolves provider/model pairs to the right server and model name', async () => {
    server = await startServer((req, res) => sendJson(res, 200, completion(`model=${String(req.body.model)}`)));
    const offline = new ScriptedChatModel({ id: 'offline' });
    const registry = openAICompatibleRegistry({
      providers: { local: { baseURL: server.baseURL, model: 'qwen2.5', maxRetries: 0 }, big: { baseURL: server.baseURL, model: 'llama70b', maxRetries: 0 } },
      defaultProvider: 'local',
      models: { offline },
      env: {},
    });
    expect(registry.resolve().id).toBe('openai-compatible:qwen2.5');
    expect(registry.resolve({ provider: 'big' }).id).toBe('openai-compatible:llama70b');
    expect(registry.resolve({ model: 'qwen3' }).id).toBe('openai-compatible:qwen3');
    expect(registry.resolve({ provider: 'local', model: 'qwen3' })).toBe(registry.resolve({ provider: 'local', model: 'qwen3' }));
    expect(registry.resolve({ provider: 'offline' })).toBe(offline);
    expect((await registry.resolve({ provider: 'big', model: 'mistral' }).generate(chatRequest())).text).toBe('model=mistral');
    expect(() => registry.resolve({ provider: 'nope' })).toThrow(KernelError);
    try {
      registry.resolve({ provider: 'nope' });
    } catch (error) {
      expect((error as KernelError).code).toBe('KERNEL_MODEL_NOT_FOUND');
    }
  });

  it('fails at construction when a provider is misconfigured', () => {
    expect(() => openAICompatibleRegistry({ providers: { local: { baseURL: 'not a url', model: 'm' } }, env: {} })).toThrow(ModelError);
    expect(() => openAICompatibleRegistry({ providers: {}, env: {} })).toThrow(/default provider/);
  });

  it('modelRegistryFromEnv uses TROUPE_MODEL_* when set and the fallback otherwise', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('from server')));
    const fallback = new ScriptedChatModel({ id: 'offline' });
    const configured = modelRegistryFromEnv({ env: { TROUPE_MODEL_BASE_URL: server.baseURL, TROUPE_MODEL: 'qwen2.5' }, fallback });
    expect(configured.resolve().id).toBe('openai-compatible:qwen2.5');
    expect(configured.resolve({ provider: 'offline' })).toBe(fallback);
    expect((await configured.resolve().generate(chatRequest())).text).toBe('from server');
    const unconfigured = modelRegistryFromEnv({ env: {}, fallback });
    expect(unconfigured.resolve()).toBe(fallback);
    expect(() => modelRegistryFromEnv({ env: {} })).toThrow(ModelError);
    expect(() => modelRegistryFromEnv({ env: { TROUPE_MODEL_BASE_URL: server?.baseURL } })).toThrow(/model/);
  });
});
