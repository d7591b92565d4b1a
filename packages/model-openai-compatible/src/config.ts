import { formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { ModelError } from './model-error.js';

/** Options of {@link openAICompatibleModel}; anything omitted comes from the environment. */
export interface OpenAICompatibleOptions {
  /** Server base URL including `/v1`, e.g. `http://127.0.0.1:11434/v1`. Env: `TROUPE_MODEL_BASE_URL`. */
  readonly baseURL?: string;
  /** API key (sent as a bearer token). Env: `TROUPE_MODEL_API_KEY`; local servers accept any string. */
  readonly apiKey?: string;
  /** Model name as the server knows it. Env: `TROUPE_MODEL`. */
  readonly model?: string;
  /** Retries of failed requests (connection errors, 408/409/429/5xx), default 2. Abort is never retried. */
  readonly maxRetries?: number;
  /**
   * Longest `Retry-After` (429/503) the client waits for, in ms (default 30 000). A server asking
   * for longer fails the call at once with MODEL_RATE_LIMITED naming the wait.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * How long the model may take to start answering, in ms (default 300 000): a non-streamed
   * answer in full, a stream's headers and then its first token. Local servers need that long
   * to load a model or read a long prompt. A request that timed out is not sent again.
   * Env: `TROUPE_MODEL_TIMEOUT_MS`.
   */
  readonly timeoutMs?: number;
  /**
   * Longest silence between streamed chunks once the first token came, before the stream fails
   * with MODEL_TIMEOUT (default 60 000). Env: `TROUPE_MODEL_STREAM_IDLE_TIMEOUT_MS`.
   */
  readonly streamIdleTimeoutMs?: number;
  /**
   * Usage in streams (`stream_options.include_usage`). `auto` (default; `true` means the same)
   * asks for it and, when the server rejects the field (Mistral answers 422), retries once
   * without it and remembers that for this model; `on` always sends it; `off` (`false`) never does.
   * Env: `TROUPE_MODEL_STREAM_USAGE`.
   */
  readonly streamUsage?: boolean | StreamUsageSetting;
  /**
   * How JSON output is requested. `auto` (default) walks the ladder `json_schema` →
   * `json_object` → `prompt` (the schema in the prompt, the first balanced JSON object taken
   * from the answer) when the server rejects a level, and remembers the level that worked for
   * this model; a fixed level is used as is. Env: `TROUPE_MODEL_STRUCTURED_OUTPUT`.
   */
  readonly structuredOutput?: StructuredOutputSetting;
  /** @deprecated Use `structuredOutput`; `false` is `structuredOutput: 'json_object'`. */
  readonly structuredOutputs?: boolean;
  /**
   * Native tool calling. `auto` (default): offered, and when the server rejects `tools` the
   * model reports `capabilities.tools === false` and throws `MODEL_TOOLS_UNSUPPORTED` without
   * sending further tool requests; `on`: assumed supported; `off`: never sent
   * (`MODEL_TOOLS_UNSUPPORTED` at once). Env: `TROUPE_MODEL_TOOLS`.
   */
  readonly tools?: boolean | ToolsSetting;
  /**
   * Inline `<think>…</think>` in the content. `auto` (default): a leading think block is
   * reasoning, and so is everything before a `</think>` that has no opening tag (the model's
   * later answers are then read as starting inside reasoning); `open-in-prompt`: the chat
   * template opens the block, so every answer starts in reasoning until `</think>`; `off`: content
   * is left as sent. Reasoning fields (`reasoning_content`, `reasoning`) are always separated.
   * Env: `TROUPE_MODEL_THINK_TAGS`.
   */
  readonly thinkTags?: ThinkTagsSetting;
  /**
   * How prompts are counted for the context budget: `auto` (default) picks the model family's
   * BPE (`o200k_base` for GPT-4o/4.1/5 and o-series, `cl100k_base` for GPT-4/3.5 and Llama 3) and
   * the kernel's Chinese-aware estimate for other models. Env: `TROUPE_MODEL_TOKENIZER`.
   */
  readonly tokenizer?: TokenizerSetting;
  /**
   * The model's context window as the server runs it (e.g. Ollama's `num_ctx`, llama.cpp's `-c`,
   * vLLM's `--max-model-len`), reported as `capabilities.contextTokens`: the default context size
   * of a chat's token budget. Env: `TROUPE_MODEL_CONTEXT_TOKENS`.
   */
  readonly contextTokens?: number;
  /** Temperature used when a request does not set one. */
  readonly temperature?: number;
  /** Extra HTTP headers for every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra body fields for every request (e.g. vLLM's `top_k`, Ollama's `keep_alive`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

/** Values of {@link OpenAICompatibleOptions.streamUsage}. */
export type StreamUsageSetting = 'auto' | 'on' | 'off';
/** Values of {@link OpenAICompatibleOptions.structuredOutput}. */
export type StructuredOutputSetting = 'auto' | StructuredOutputLevel;
/** The rungs of the structured output ladder, strongest first. */
export type StructuredOutputLevel = 'json_schema' | 'json_object' | 'prompt';
/** Values of {@link OpenAICompatibleOptions.tools}. */
export type ToolsSetting = 'auto' | 'on' | 'off';
/** Values of {@link OpenAICompatibleOptions.thinkTags}. */
export type ThinkTagsSetting = 'auto' | 'open-in-prompt' | 'off';
/** Values of {@link OpenAICompatibleOptions.tokenizer}. */
export type TokenizerSetting = 'auto' | 'o200k_base' | 'cl100k_base' | 'estimate';

/**
 * Environment variables read by {@link resolveOpenAICompatibleConfig} (with the default prefix
 * `TROUPE_MODEL`; another prefix, e.g. `TROUPE_STORY_MODEL`, replaces it in every name).
 */
export const MODEL_ENV = {
  baseURL: 'TROUPE_MODEL_BASE_URL',
  apiKey: 'TROUPE_MODEL_API_KEY',
  model: 'TROUPE_MODEL',
  streamUsage: 'TROUPE_MODEL_STREAM_USAGE',
  structuredOutput: 'TROUPE_MODEL_STRUCTURED_OUTPUT',
  tools: 'TROUPE_MODEL_TOOLS',
  thinkTags: 'TROUPE_MODEL_THINK_TAGS',
  tokenizer: 'TROUPE_MODEL_TOKENIZER',
  contextTokens: 'TROUPE_MODEL_CONTEXT_TOKENS',
  timeoutMs: 'TROUPE_MODEL_TIMEOUT_MS',
  streamIdleTimeoutMs: 'TROUPE_MODEL_STREAM_IDLE_TIMEOUT_MS',
} as const;

/** The prefix of {@link MODEL_ENV}. */
export const DEFAULT_ENV_PREFIX = 'TROUPE_MODEL';

/**
 * The environment variable names for a prefix.
 * @param prefix - e.g. `TROUPE_STORY_MODEL`
 * @returns the names, shaped like {@link MODEL_ENV}
 */
export function modelEnvNames(prefix: string = DEFAULT_ENV_PREFIX): { readonly [K in keyof typeof MODEL_ENV]: string } {
  return Object.fromEntries(Object.entries(MODEL_ENV).map(([key, name]) => [key, `${prefix}${name.slice(DEFAULT_ENV_PREFIX.length)}`])) as {
    readonly [K in keyof typeof MODEL_ENV]: string;
  };
}

// Local servers (Ollama, llama.cpp, LM Studio) ignore the key but the wire format wants one.
const PLACEHOLDER_API_KEY = 'troupe-no-key';

const ConfigSchema = z.object({
  baseURL: z
    .url({ protocol: /^https?$/ })
    // A password in the URL would be shown in every error message and log line (and fetch
    // refuses such URLs anyway); a query string would end up in front of `/chat/completions`.
    .refine((url) => URL.canParse(url) && new URL(url).username === '' && new URL(url).password === '', 'must not hold a user name or password: put the key in apiKey (or a header)')
    .refine((url) => URL.canParse(url) && new URL(url).search === '' && new URL(url).hash === '', 'must not have a query string or fragment: it ends with the API path, e.g. /v1')
    .transform((url) => url.replace(/\/+$/, '')),
  apiKey: z.string().min(1),
  model: z.string().trim().min(1),
  maxRetries: z.int().min(0).max(10).default(2),
  maxRetryAfterMs: z.int().min(0).max(3_600_000).default(30_000),
  timeoutMs: z.coerce.number().int().min(1).max(3_600_000).default(300_000),
  streamIdleTimeoutMs: z.coerce.number().int().min(1).max(3_600_000).default(60_000),
  streamUsage: z
    .union([z.boolean(), z.enum(['auto', 'on', 'off'])])
    .default('auto')
    .transform((value): StreamUsageSetting => (value === true ? 'auto' : value === false ? 'off' : value)),
  structuredOutput: z.enum(['auto', 'json_schema', 'json_object', 'prompt']).default('auto'),
  tools: z
    .union([z.boolean(), z.enum(['auto', 'on', 'off'])])
    .default('auto')
    .transform((value): ToolsSetting => (value === true ? 'on' : value === false ? 'off' : value)),
  thinkTags: z.enum(['auto', 'open-in-prompt', 'off']).default('auto'),
  tokenizer: z.enum(['auto', 'o200k_base', 'cl100k_base', 'estimate']).default('auto'),
  contextTokens: z.coerce.number().int().min(256).max(100_000_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  extraBody: z.record(z.string(), z.unknown()).default({}),
});

/** Fully resolved, validated configuration. */
export type OpenAICompatibleConfig = z.infer<typeof ConfigSchema>;

/**
 * Merges options over environment variables and validates the result.
 * @param options - explicit options (win over the environment)
 * @param env - environment to read (default `process.env`)
 * @returns the validated configuration
 * @throws {ModelError} MODEL_CONFIG_INVALID naming every missing or malformed setting
 */
export function resolveOpenAICompatibleConfig(
  options: OpenAICompatibleOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  envPrefix: string = DEFAULT_ENV_PREFIX,
): OpenAICompatibleConfig {
  const names = modelEnvNames(envPrefix);
  const { structuredOutputs, ...rest } = options;
  const candidate = {
    ...rest,
    baseURL: options.baseURL ?? nonEmpty(env[names.baseURL]),
    apiKey: options.apiKey ?? nonEmpty(env[names.apiKey]) ?? PLACEHOLDER_API_KEY,
    model: options.model ?? nonEmpty(env[names.model]),
    streamUsage: options.streamUsage ?? setting(env[names.streamUsage]),
    structuredOutput: options.structuredOutput ?? (structuredOutputs === false ? 'json_object' : setting(env[names.structuredOutput])),
    tools: options.tools ?? setting(env[names.tools]),
    thinkTags: options.thinkTags ?? setting(env[names.thinkTags]),
    tokenizer: options.tokenizer ?? setting(env[names.tokenizer]),
    contextTokens: options.contextTokens ?? nonEmpty(env[names.contextTokens]),
    timeoutMs: options.timeoutMs ?? nonEmpty(env[names.timeoutMs]),
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? nonEmpty(env[names.streamIdleTimeoutMs]),
  };
  const parsed = ConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new ModelError(
      'MODEL_CONFIG_INVALID',
      `Invalid OpenAI-compatible model configuration (options or ${names.baseURL}/${names.model}/${names.structuredOutput}/…): ${formatIssues(parsed.error)}`,
      { cause: parsed.error, details: { issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })) } },
    );
  }
  return parsed.data;
}

/** An environment setting: trimmed and lower-cased, `true`/`false` as booleans, empty as unset. */
function setting(value: string | undefined): string | boolean | undefined {
  const trimmed = nonEmpty(value)?.toLowerCase();
  if (trimmed === 'true' || trimmed === '1') return true;
  if (trimmed === 'false' || trimmed === '0') return false;
  return trimmed;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
