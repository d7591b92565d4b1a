import { stat, readFile, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeDemo } from '../src/compose.js';
import { expectError, playTurn } from './support/api-client.js';
import { corpusBytes, upload } from './support/corpus.js';
import { tempDataDir } from './helpers.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture({ fakeModel: { reply: '*Lia smiles.* The server answered this.' } });
const { api } = fx;

describe('model settings', () => {
  it('starts offline and says so', async () => {
    const answer = await api('GET', '/api/settings/model');
    expect(answer.body).toMatchObject({ source: 'offline', offline: true, modelId: 'offline', settings: { baseUrl: null, hasApiKey: false } });
    expect((await api('GET', '/api/health')).body.offline).toBe(true);
  });

  it('tests a connection by listing the server models, and reports a dead one', async () => {
    const ok = await api('POST', '/api/settings/model/test', { baseUrl: fx.fake.baseUrl, apiKey: 'sk-test' });
    expect(ok.body).toEqual({ ok: true, models: ['fake-rp', 'fake-small'] });
    const dead = await api('POST', '/api/settings/model/test', { baseUrl: 'http://127.0.0.1:9/v1' });
    expectError(dead, 502, 'MODEL_CONNECTION_FAILED');
    expectError(await api('POST', '/api/settings/model/test', { baseUrl: 'file:///etc/passwd' }), 400, 'INVALID_REQUEST');
    // A password or a key in the URL is refused, and never repeated back.
    for (const baseUrl of [`http://bob:hunter2pass@127.0.0.1:9/v1`, `http://127.0.0.1:9/v1?api_key=sk-URLKEY-777`]) {
      for (const refused of [await api('POST', '/api/settings/model/test', { baseUrl }), await api('PUT', '/api/settings/model', { baseUrl, model: 'm' })]) {
        expectError(refused, 400, 'INVALID_REQUEST');
        expect(JSON.stringify(refused.body)).not.toMatch(/hunter2pass|sk-URLKEY-777/);
      }
    }
  });

  it('saves the connection in a 0600 file, never sends the key back, and plays turns through it', async () => {
    const saved = await api('PUT', '/api/settings/model', { baseUrl: fx.fake.baseUrl, model: 'fake-rp', apiKey: 'sk-secret-123', contextSize: 8192, maxTokens: 300 });
    expect(saved.status).toBe(200);
    expect(saved.text).not.toContain('sk-secret-123');
    expect(saved.body).toMatchObject({ source: 'settings', offline: false, modelId: expect.stringContaining('fake-rp'), settings: { baseUrl: fx.fake.baseUrl, model: 'fake-rp', hasApiKey: true, contextSize: 8192, maxTokens: 300 } });
    expect((await api('GET', '/api/settings/model')).text).not.toContain('sk-secret-123');
    const file = join(fx.dataDir, 'settings', 'model.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8')).apiKey).toBe('sk-secret-123');

    // The context size is the model's window; both travel with every turn as its token budget.
    expect(fx.demo.models.resolve().capabilities?.contextTokens).toBe(8192);
    expect((await fx.demo.turnInputFor('settings-turn', 'x')).scenario).toMatchObject({ tokenBudget: { contextTokens: 8192, responseTokens: 300 } });
    const before = fx.fake.requests.length;
    const messages = await playTurn(fx.server.url, 'settings-turn', 'Hello?');
    expect((messages.at(-1)?.data as { reply: string } | undefined)?.reply).toBe('*Lia smiles.* The server answered this.');
    const request = fx.fake.requests.slice(before).find((r) => r.body.stream);
    expect(request?.body.model).toBe('fake-rp');
    expect((request?.body as { max_tokens?: number } | undefined)?.max_tokens).toBe(300);

    // Keeping the key: a save without apiKey leaves it; null clears it.
    await api('PUT', '/api/settings/model', { maxTokens: 200 });
    expect(JSON.parse(await readFile(file, 'utf8')).apiKey).toBe('sk-secret-123');
    const cleared = await api('PUT', '/api/settings/model', { apiKey: null, baseUrl: '', model: '' });
    expect(cleared.body).toMatchObject({ source: 'offline', settings: { hasApiKey: false, baseUrl: null } });
    expectError(await api('PUT', '/api/settings/model', { baseUrl: 'ftp://x' }), 400, 'INVALID_REQUEST');
  });

  it('saves how to talk to each server (structured output, stream usage, tools) and applies them; context size and reply length become the chat budget', async () => {
    const saved = await api('PUT', '/api/settings/model', {
      baseUrl: fx.fake.baseUrl,
      model: 'fake-rp',
      contextSize: 16384,
      maxTokens: 512,
      structuredOutput: 'prompt',
      streamUsage: 'off',
      tools: 'off',
      story: { baseUrl: fx.fake.baseUrl, model: 'fake-small', structuredOutput: 'json_object' },
    });
    expect(saved.body.settings).toMatchObject({
      structuredOutput: 'prompt',
      streamUsage: 'off',
      tools: 'off',
      story: { model: 'fake-small', structuredOutput: 'json_object', streamUsage: 'auto', tools: 'auto' },
    });
    expect(fx.demo.models.resolve().capabilities).toEqual({ tools: false, contextTokens: 16384 });
    expect(fx.demo.turnInput('s', 'hi').scenario?.tokenBudget).toEqual({ contextTokens: 16384, responseTokens: 512 });
    const before = fx.fake.requests.length;
    await playTurn(fx.server.url, 'server-settings-turn', 'Hello?');
    const streamed = fx.fake.requests.slice(before).find((request) => request.body.stream);
    expect((streamed?.body as { stream_options?: unknown } | undefined)?.stream_options).toBeUndefined();
    // `auto` is stored as "not set".
    await api('PUT', '/api/settings/model', { structuredOutput: 'auto', streamUsage: 'auto', tools: 'auto' });
    const file = JSON.parse(await readFile(join(fx.dataDir, 'settings', 'model.json'), 'utf8'));
    expect(file.structuredOutput).toBeUndefined();
    expect(file.story.structuredOutput).toBe('json_object');
    expectError(await api('PUT', '/api/settings/model', { tools: 'sometimes' }), 400, 'INVALID_REQUEST');
    // null clears the context size and the reply length (back to the defaults), in the answer and the file.
    const cleared = await api('PUT', '/api/settings/model', { contextSize: null, maxTokens: null });
    expect(cleared.body.settings).toMatchObject({ contextSize: null, maxTokens: null });
    const clearedFile = JSON.parse(await readFile(join(fx.dataDir, 'settings', 'model.json'), 'utf8'));
    expect([clearedFile.contextSize, clearedFile.maxTokens]).toEqual([undefined, undefined]);
    expect(fx.demo.turnInput('s', 'hi').scenario?.tokenBudget?.contextTokens).not.toBe(16384);
    await api('PUT', '/api/settings/model', { baseUrl: '', model: '', story: { baseUrl: '', model: '' } });
  });

  it('reads the story pipeline model from TROUPE_STORY_MODEL_* (provider "story")', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      const demo = await composeDemo({
        dataDir: dir,
        env: { TROUPE_STORY_MODEL_BASE_URL: fx.fake.baseUrl, TROUPE_STORY_MODEL: 'fake-small', TROUPE_STORY_MODEL_TOOLS: 'off' },
      });
      try {
        expect(demo.modelId).toBe('offline');
        const story = demo.models.resolve({ provider: 'story' });
        expect(story.id).toBe('openai-compatible:fake-small');
        expect(story.capabilities).toEqual({ tools: false });
      } finally {
        await demo.close();
      }
    } finally {
      await cleanup();
    }
  });

  it('lets the environment win over saved settings', async () => {
    const { dir, cleanup } = await tempDataDir();
    try {
      await mkdir(join(dir, 'settings'), { recursive: true });
      await writeFile(join(dir, 'settings', 'model.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9/v1', model: 'saved-model' }), { mode: 0o600 });
      const demo = await composeDemo({ dataDir: dir, env: { TROUPE_MODEL_BASE_URL: fx.fake.baseUrl, TROUPE_MODEL: 'env-model' } });
      try {
        expect(demo.models.source).toBe('environment');
        expect(demo.modelId).toContain('env-model');
      } finally {
        await demo.close();
      }
      const saved = await composeDemo({ dataDir: dir, env: {} });
      try {
        expect(saved.models.source).toBe('settings');
        expect(saved.modelId).toContain('saved-model');
      } finally {
        await saved.close();
      }
    } finally {
      await cleanup();
    }
  });

  it('a saved timeout bounds how long a silent server is waited for; the turn ends with a message naming it', async () => {
    const silent = createServer(() => {
      // reads the request, never answers (a server stuck loading a model)
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
      const saved = await api('PUT', '/api/settings/model', { baseUrl, model: 'stuck', timeoutSeconds: 1 });
      expect(saved.body.settings.timeoutSeconds).toBe(1);
      expectError(await api('PUT', '/api/settings/model', { timeoutSeconds: 0 }), 400, 'INVALID_REQUEST');
      const started = Date.now();
      const last = (await playTurn(fx.server.url, 'timeout-turn', 'Hello?')).at(-1);
      expect(last?.event).toBe('error');
      expect(JSON.stringify(last?.data)).toContain('did not answer in time');
      // The director's call and the actor's each waited once (no retry of a timeout).
      expect(Date.now() - started).toBeLessThan(10_000);
      const cleared = await api('PUT', '/api/settings/model', { timeoutSeconds: null });
      expect(cleared.body.settings.timeoutSeconds).toBeNull();
    } finally {
      await api('PUT', '/api/settings/model', { baseUrl: '', model: '', timeoutSeconds: null });
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("a library chat is played with its preset's sampling, and with its context size and response length where the settings set none", async () => {
    await api('PUT', '/api/settings/model', { baseUrl: fx.fake.baseUrl, model: 'fake-rp', contextSize: null, maxTokens: null });
    try {
      const raw = JSON.parse(new TextDecoder().decode(corpusBytes('presets', 'p01-st-default.json')));
      const tuned = { ...raw, temperature: 0.7, top_p: 0.9, frequency_penalty: 0.3, presence_penalty: 0.2, openai_max_context: 20_000, openai_max_tokens: 345 };
      const preset = await upload(fx.server.url, '/api/presets', new TextEncoder().encode(JSON.stringify(tuned)), 'Tuned.json');
      // The preset view says which of its settings the chat applies to the model call.
      const warnings = (await api('GET', `/api/presets/${preset.body.id}`)).body.importWarnings as string[];
      expect(warnings).toContain("Applied to the reply's model call (unless the Model view or the server sets them): temperature, top_p, frequency_penalty, presence_penalty, openai_max_context, openai_max_tokens");
      expect(warnings.find((warning) => warning.startsWith('Not applied by the assembler'))).not.toMatch(/\btemperature\b|\btop_p\b|openai_max_context/);
      const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Vela', description: '{{char}} keeps the lighthouse.', first_mes: 'Welcome.' } };
      const character = await upload(fx.server.url, '/api/characters', new TextEncoder().encode(JSON.stringify(card)), 'vela.json');
      const chat = await api('POST', '/api/chats', { characterId: character.body.id, presetId: preset.body.id });
      expect((await fx.demo.turnInputFor(chat.body.id, 'x')).scenario).toMatchObject({
        tokenBudget: { contextTokens: 20_000, responseTokens: 345 },
        actorSampling: { temperature: 0.7, topP: 0.9, frequencyPenalty: 0.3, presencePenalty: 0.2 },
      });
      const before = fx.fake.requests.length;
      await playTurn(fx.server.url, chat.body.id, 'Is the light on?');
      const actor = fx.fake.requests.slice(before).find((request) => request.body.stream);
      expect(actor?.body).toMatchObject({ temperature: 0.7, top_p: 0.9, frequency_penalty: 0.3, presence_penalty: 0.2, max_tokens: 345 });
      // Any other call of the turn (a director's, a stage's) keeps the server's defaults.
      expect(fx.fake.requests.slice(before).filter((request) => !request.body.stream).every((request) => !('top_p' in request.body))).toBe(true);
      // A size saved in the Model view says what the server runs: it wins over the preset's.
      await api('PUT', '/api/settings/model', { contextSize: 8192, maxTokens: 200 });
      expect((await fx.demo.turnInputFor(chat.body.id, 'x')).scenario?.tokenBudget).toEqual({ contextTokens: 8192, responseTokens: 200 });
    } finally {
      await api('PUT', '/api/settings/model', { baseUrl: '', model: '', contextSize: null, maxTokens: null });
    }
  });
});
