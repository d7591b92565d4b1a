import type { ChatModel } from '@troupe/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { modelRegistryFromEnv } from '../src/index.js';
import { chatRequest, completion, type LoopbackServer, sendJson, startServer } from './loopback-server.js';

const offlineModel = (): ChatModel => ({ id: 'offline', generate: async () => ({ text: 'offline' }) });

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a second provider from the environment (the story pipeline model)', () => {
  it('registers `story` from TROUPE_STORY_MODEL_* with its own settings, next to the chat model', async () => {
    server = await startServer((_req, res) => sendJson(res, 200, completion('{"ok":true}')));
    const env = {
      TROUPE_MODEL_BASE_URL: server.baseURL,
      TROUPE_MODEL: 'chat-model',
      TROUPE_STORY_MODEL_BASE_URL: server.baseURL,
      TROUPE_STORY_MODEL: 'story-model',
      TROUPE_STORY_MODEL_STRUCTURED_OUTPUT: 'prompt',
    };
    const models = modelRegistryFromEnv({ env, fallback: offlineModel(), envProviders: { story: 'TROUPE_STORY_MODEL' } });
    expect(models.resolve().id).toBe('openai-compatible:chat-model');
    const story = models.resolve({ provider: 'story' });
    expect(story.id).toBe('openai-compatible:story-model');
    await story.generate(chatRequest({ json: { schema: { type: 'object' } } }));
    await models.resolve().generate(chatRequest({ json: { schema: { type: 'object' } } }));
    expect(server.requests.map((request) => [request.body.model, (request.body.response_format as { type?: string } | undefined)?.type ?? 'none'])).toEqual([
      ['story-model', 'none'],
      ['chat-model', 'json_schema'],
    ]);
  });

  it('leaves `story` out while its base URL is unset', () => {
    const models = modelRegistryFromEnv({ env: { TROUPE_STORY_MODEL: 'x' }, fallback: offlineModel(), envProviders: { story: 'TROUPE_STORY_MODEL' } });
    expect(() => models.resolve({ provider: 'story' })).toThrow(/No model registered for provider "story"/);
  });
});
