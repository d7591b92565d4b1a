import { systemClock } from '@troupe/kernel';
import { readCappedText, runWithin } from '@troupe/kernel/util';
import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../../compose.js';
import { ConnectionSchema, type ModelSettings, ModelSettingsSchema, SERVER_SETTING_KEYS, settingsView } from '../../settings/model-settings.js';
import type { ModelSettingsAnswer } from '../../wire/library.js';
import { ApiError } from '../api-error.js';
import { jsonBody } from '../validation.js';

// `apiKey: null` clears a key; leaving it out keeps the saved one (the browser never has it).
const KeyChange = z.string().max(4096).nullable().optional();
const ConnectionChange = ConnectionSchema.omit({ apiKey: true }).extend({
  baseUrl: ConnectionSchema.shape.baseUrl.or(z.literal('')),
  model: z.string().trim().max(256).optional(),
  apiKey: KeyChange,
  // null: back to the provider's default.
  timeoutSeconds: ConnectionSchema.shape.timeoutSeconds.unwrap().nullable().optional(),
});
const SaveSchema = ConnectionChange.extend({
  contextSize: ModelSettingsSchema.shape.contextSize.nullable(),
  maxTokens: ModelSettingsSchema.shape.maxTokens.nullable(),
  story: ConnectionChange.optional(),
})
  .partial()
  .strict();
const TestSchema = z.object({ baseUrl: ConnectionSchema.shape.baseUrl.unwrap(), apiKey: z.string().max(4096).optional(), useSavedKey: z.enum(['chat', 'story']).optional() }).strict();

type Connection = NonNullable<ModelSettings['story']>;

// How long "Test connection" waits for a model server's model list (headers and body).
const TEST_TIMEOUT_MS = 10_000;

// The connection's own fields of `current` (the top level of the settings also holds the context
// size, the reply length and the story connection, which the caller merges itself).
const CONNECTION_KEYS = Object.keys(ConnectionSchema.shape) as (keyof Connection)[];

function mergeConnection(current: Connection | undefined, change: z.output<typeof ConnectionChange> | undefined): Connection {
  const next: Connection = Object.fromEntries(CONNECTION_KEYS.filter((key) => current?.[key] !== undefined).map((key) => [key, current?.[key]]));
  if (change === undefined) return next;
  if (change.baseUrl !== undefined) next.baseUrl = change.baseUrl === '' ? undefined : change.baseUrl;
  if (change.model !== undefined) next.model = change.model === '' ? undefined : change.model;
  if (change.apiKey !== undefined) next.apiKey = change.apiKey === null || change.apiKey === '' ? undefined : change.apiKey;
  if (change.timeoutSeconds !== undefined) next.timeoutSeconds = change.timeoutSeconds ?? undefined;
  // `auto` is the provider's default: stored as "not set".
  for (const key of SERVER_SETTING_KEYS) {
    const value = change[key];
    if (value !== undefined) (next as Record<string, unknown>)[key] = value === 'auto' ? undefined : value;
  }
  return Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined)) as Connection;
}

/**
 * Model settings routes under `/api/settings/model`: read (never the API key), save, and test a
 * connection by listing the server's models. Environment variables win over saved settings.
 * @param demo - the composed demo
 * @returns the routes
 */
export function settingsRoutes(demo: Demo): Hono {
  const app = new Hono();

  const answer = async (): Promise<ModelSettingsAnswer> => {
    const settings = await demo.settings.read();
    return {
      settings: settingsView(settings),
      source: demo.models.source,
      modelId: demo.modelId,
      offline: demo.modelId === 'offline',
      environment: demo.models.source === 'environment',
    };
  };

  app.get('/', async (c) => {
    try {
      return c.json(await answer());
    } catch (error) {
      // A hand-broken settings file is shown, not a 500: the player can save over it.
      if ((error as { code?: string }).code !== 'SETTINGS_INVALID') throw error;
      return c.json({ settings: settingsView({}), source: demo.models.source, modelId: demo.modelId, offline: demo.modelId === 'offline', environment: false, problem: (error as Error).message } satisfies ModelSettingsAnswer);
    }
  });

  app.put('/', async (c) => {
    const change = await jsonBody(c, SaveSchema);
    const current = await demo.settings.read().catch(() => ({}) as ModelSettings);
    const next: ModelSettings = { ...mergeConnection(current, change) };
    const contextSize = change.contextSize === undefined ? current.contextSize : (change.contextSize ?? undefined);
    const maxTokens = change.maxTokens === undefined ? current.maxTokens : (change.maxTokens ?? undefined);
    const story = mergeConnection(current.story, change.story);
    const settings = ModelSettingsSchema.parse({
      ...next,
      ...(contextSize !== undefined ? { contextSize } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(Object.keys(story).length > 0 ? { story } : {}),
    });
    // Built before saving: settings the provider refuses are answered as 400 and never stored.
    demo.models.apply(settings);
    await demo.settings.write(settings);
    return c.json(await answer());
  });

  app.post('/test', async (c) => {
    const body = await jsonBody(c, TestSchema);
    const saved = body.useSavedKey ? await demo.settings.read() : {};
    const key = body.apiKey ?? (body.useSavedKey === 'story' ? (saved as ModelSettings).story?.apiKey : (saved as ModelSettings).apiKey);
    const url = `${body.baseUrl.replace(/\/+$/, '')}/models`;
    const failed = (cause: unknown) => new ApiError(502, 'MODEL_CONNECTION_FAILED', `Could not reach ${url}: ${(cause as Error).message}`, { cause });
    // The kernel's deadline over the whole exchange (headers and body); the browser leaving cancels it.
    const { response, text } = await runWithin(
      systemClock,
      TEST_TIMEOUT_MS,
      c.req.raw.signal,
      () => failed(new DOMException(`no answer within ${TEST_TIMEOUT_MS / 1000} s`, 'TimeoutError')),
      async (signal) => {
        let answer: Response;
        try {
          answer = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal });
        } catch (error) {
          throw failed(error);
        }
        return { response: answer, text: await readCappedText(answer.body, 1024 * 1024) };
      },
    );
    if (!response.ok) throw new ApiError(502, 'MODEL_CONNECTION_FAILED', `${url} answered HTTP ${response.status}${response.status === 401 ? ' (check the API key)' : ''}`);
    const parsed = z.object({ data: z.array(z.object({ id: z.string() }).loose()).max(10_000) }).loose().safeParse(safeJson(text));
    if (!parsed.success) throw new ApiError(502, 'MODEL_CONNECTION_FAILED', `${url} did not answer with an OpenAI-style model list`);
    return c.json({ ok: true, models: parsed.data.data.map((model) => model.id) });
  });

  return app;
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
