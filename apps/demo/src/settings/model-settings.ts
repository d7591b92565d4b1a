import { formatIssues } from '@troupe/kernel';
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { LibraryError } from '../library/library-error.js';

// Where the player's model connection lives: one JSON file under the data directory, readable by
// the owner only (0600, folder 0700) because it holds the API key. The key never leaves the
// server: views carry `hasApiKey` instead.

const HttpUrl = z
  .string()
  .trim()
  .max(2048)
  .url('must be a URL such as http://127.0.0.1:11434/v1')
  .refine((value) => /^https?:\/\//i.test(value), 'must start with http:// or https://')
  // A password in the URL would show in error messages and logs; a query string breaks the API path.
  .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), 'must not hold a user name or password: put the key in the API key field')
  .refine((value) => !URL.canParse(value) || (new URL(value).search === '' && new URL(value).hash === ''), 'must not have a query string: it ends with the API path, e.g. /v1');

/**
 * One OpenAI-compatible server: where, which model, its key, and how to talk to it (the
 * provider's `structuredOutput`, `streamUsage` and `tools`; unset = `auto`, see the
 * `@troupe/model-openai-compatible` README for which server needs which).
 */
export const ConnectionSchema = z.object({
  baseUrl: HttpUrl.optional(),
  model: z.string().trim().min(1).max(256).optional(),
  apiKey: z.string().max(4096).optional(),
  structuredOutput: z.enum(['auto', 'json_schema', 'json_object', 'prompt']).optional(),
  streamUsage: z.enum(['auto', 'on', 'off']).optional(),
  tools: z.enum(['auto', 'on', 'off']).optional(),
  /** How long the model may take to start answering, in seconds (the provider's `timeoutMs`; default 300). */
  timeoutSeconds: z.number().int().min(1).max(3600).optional(),
});

/** The server-behaviour settings of a connection, as the browser sees and sends them. */
export const SERVER_SETTING_KEYS = ['structuredOutput', 'streamUsage', 'tools'] as const;

/** The stored settings. */
export const ModelSettingsSchema = ConnectionSchema.extend({
  /** The model's context window in tokens (shown, and kept for the history budget). */
  contextSize: z.number().int().min(512).max(10_000_000).optional(),
  /** Longest reply in tokens (`max_tokens`). */
  maxTokens: z.number().int().min(16).max(1_000_000).optional(),
  /** The story pipeline's own server/model (provider `story` in a workspace's pipeline settings). */
  story: ConnectionSchema.optional(),
});

/** Model settings as stored. */
export type ModelSettings = z.output<typeof ModelSettingsSchema>;

/** What the browser sees: everything but the keys. */
export interface ModelSettingsView extends ServerSettingsView {
  readonly baseUrl: string | null;
  readonly model: string | null;
  readonly hasApiKey: boolean;
  readonly contextSize: number | null;
  readonly maxTokens: number | null;
  readonly timeoutSeconds: number | null;
  readonly story: { readonly baseUrl: string | null; readonly model: string | null; readonly hasApiKey: boolean; readonly timeoutSeconds: number | null } & ServerSettingsView;
}

/** How a connection talks to its server (`auto` when unset). */
export interface ServerSettingsView {
  readonly structuredOutput: 'auto' | 'json_schema' | 'json_object' | 'prompt';
  readonly streamUsage: 'auto' | 'on' | 'off';
  readonly tools: 'auto' | 'on' | 'off';
}

function serverSettingsView(connection: z.output<typeof ConnectionSchema> | undefined): ServerSettingsView {
  return { structuredOutput: connection?.structuredOutput ?? 'auto', streamUsage: connection?.streamUsage ?? 'auto', tools: connection?.tools ?? 'auto' };
}

/**
 * The settings without their keys.
 * @param settings - stored settings
 * @returns the view for the browser
 */
export function settingsView(settings: ModelSettings): ModelSettingsView {
  return {
    baseUrl: settings.baseUrl ?? null,
    model: settings.model ?? null,
    hasApiKey: (settings.apiKey ?? '') !== '',
    contextSize: settings.contextSize ?? null,
    maxTokens: settings.maxTokens ?? null,
    timeoutSeconds: settings.timeoutSeconds ?? null,
    ...serverSettingsView(settings),
    story: {
      baseUrl: settings.story?.baseUrl ?? null,
      model: settings.story?.model ?? null,
      hasApiKey: (settings.story?.apiKey ?? '') !== '',
      timeoutSeconds: settings.story?.timeoutSeconds ?? null,
      ...serverSettingsView(settings.story),
    },
  };
}

/** Reads and writes `<data>/settings/model.json`. */
export class ModelSettingsFile {
  readonly #dir: string;
  readonly #path: string;

  /** @param dataDir - the demo's data directory */
  constructor(dataDir: string) {
    this.#dir = join(dataDir, 'settings');
    this.#path = join(this.#dir, 'model.json');
  }

  /** The file's path (for messages and tests). */
  get path(): string {
    return this.#path;
  }

  /**
   * The stored settings (empty when none were saved).
   * @returns settings
   * @throws {LibraryError} SETTINGS_INVALID when a hand edit broke the file (it is left as it is)
   */
  async read(): Promise<ModelSettings> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new LibraryError('SETTINGS_INVALID', `${this.#path} is not valid JSON; fix or delete it`);
    }
    const parsed = ModelSettingsSchema.safeParse(value);
    if (!parsed.success) throw new LibraryError('SETTINGS_INVALID', `${this.#path}: ${formatIssues(parsed.error)}`);
    return parsed.data;
  }

  /**
   * Replaces the settings atomically (temp file with mode 0600, fsync, rename).
   * @param settings - validated settings
   */
  async write(settings: ModelSettings): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await chmod(this.#dir, 0o700);
    const temp = `${this.#path}.${process.pid}.${Date.now()}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(JSON.stringify(settings, null, 2));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, this.#path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await chmod(this.#path, 0o600);
  }
}
