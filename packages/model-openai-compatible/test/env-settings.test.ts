import { describe, expect, it } from 'vitest';
import { ModelError, modelEnvNames, resolveOpenAICompatibleConfig } from '../src/index.js';

const base = { TROUPE_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', TROUPE_MODEL: 'qwen3' };

describe('settings from the environment', () => {
  it('reads TROUPE_MODEL_STRUCTURED_OUTPUT, _STREAM_USAGE, _TOOLS, _THINK_TAGS and _TOKENIZER', () => {
    const config = resolveOpenAICompatibleConfig({}, {
      ...base,
      TROUPE_MODEL_STRUCTURED_OUTPUT: 'json_object',
      TROUPE_MODEL_STREAM_USAGE: 'false',
      TROUPE_MODEL_TOOLS: 'OFF',
      TROUPE_MODEL_THINK_TAGS: 'open-in-prompt',
      TROUPE_MODEL_TOKENIZER: 'estimate',
    });
    expect(config).toMatchObject({ structuredOutput: 'json_object', streamUsage: 'off', tools: 'off', thinkTags: 'open-in-prompt', tokenizer: 'estimate' });
  });

  it('defaults to auto everywhere; options win over the environment; the old structuredOutputs: false still means json_object', () => {
    expect(resolveOpenAICompatibleConfig({}, base)).toMatchObject({ structuredOutput: 'auto', streamUsage: 'auto', tools: 'auto', thinkTags: 'auto', tokenizer: 'auto' });
    expect(resolveOpenAICompatibleConfig({ tools: 'on' }, { ...base, TROUPE_MODEL_TOOLS: 'off' }).tools).toBe('on');
    expect(resolveOpenAICompatibleConfig({ structuredOutputs: false }, base).structuredOutput).toBe('json_object');
  });

  it('reads TROUPE_MODEL_TIMEOUT_MS and _STREAM_IDLE_TIMEOUT_MS; the defaults wait for a slow local server (5 min for the first token, 1 min between tokens)', () => {
    expect(resolveOpenAICompatibleConfig({}, base)).toMatchObject({ timeoutMs: 300_000, streamIdleTimeoutMs: 60_000 });
    expect(resolveOpenAICompatibleConfig({}, { ...base, TROUPE_MODEL_TIMEOUT_MS: '900000', TROUPE_MODEL_STREAM_IDLE_TIMEOUT_MS: ' 120000 ' })).toMatchObject({ timeoutMs: 900_000, streamIdleTimeoutMs: 120_000 });
    expect(resolveOpenAICompatibleConfig({ timeoutMs: 1_000 }, { ...base, TROUPE_MODEL_TIMEOUT_MS: '900000' }).timeoutMs).toBe(1_000);
    expect(() => resolveOpenAICompatibleConfig({}, { ...base, TROUPE_MODEL_TIMEOUT_MS: 'soon' })).toThrow(/timeoutMs/);
  });

  it('reads another prefix (the story pipeline model: TROUPE_STORY_MODEL_*)', () => {
    expect(modelEnvNames('TROUPE_STORY_MODEL')).toMatchObject({ baseURL: 'TROUPE_STORY_MODEL_BASE_URL', model: 'TROUPE_STORY_MODEL', tools: 'TROUPE_STORY_MODEL_TOOLS' });
    const config = resolveOpenAICompatibleConfig({}, { TROUPE_STORY_MODEL_BASE_URL: 'http://127.0.0.1:8000/v1', TROUPE_STORY_MODEL: 'qwq', TROUPE_STORY_MODEL_STRUCTURED_OUTPUT: 'prompt' }, 'TROUPE_STORY_MODEL');
    expect(config).toMatchObject({ baseURL: 'http://127.0.0.1:8000/v1', model: 'qwq', structuredOutput: 'prompt' });
  });

  it('rejects an unknown value with MODEL_CONFIG_INVALID naming the setting', () => {
    try {
      resolveOpenAICompatibleConfig({}, { ...base, TROUPE_MODEL_STRUCTURED_OUTPUT: 'grammar' });
      expect.unreachable();
    } catch (error) {
      expect(ModelError.isInstance(error)).toBe(true);
      expect((error as ModelError).code).toBe('MODEL_CONFIG_INVALID');
      expect((error as ModelError).message).toContain('structuredOutput');
    }
  });
});

describe('the context window setting', () => {
  it('TROUPE_MODEL_CONTEXT_TOKENS becomes capabilities.contextTokens; a bad value is MODEL_CONFIG_INVALID', async () => {
    const { openAICompatibleModel } = await import('../src/index.js');
    expect(openAICompatibleModel({}, { ...base, TROUPE_MODEL_CONTEXT_TOKENS: '16384' }).capabilities).toEqual({ contextTokens: 16384 });
    expect(openAICompatibleModel({ contextTokens: 4096, tools: 'off' }, base).capabilities).toEqual({ tools: false, contextTokens: 4096 });
    expect(() => openAICompatibleModel({}, { ...base, TROUPE_MODEL_CONTEXT_TOKENS: 'lots' })).toThrow(/contextTokens/);
  });
});
