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
  /** Time to wait for the response headers of each attempt, in ms (default 60 000). */
  readonly timeoutMs?: number;
  /** Longest silence between streamed chunks before the stream fails with MODEL_TIMEOUT (default 30 000). */
  readonly streamIdleTimeoutMs?: number;
  /** Ask for usage in streams (`stream_options.include_usage`, default true). Turn off for servers that reject it. */
  readonly streamUsage?: boolean;
  /** Send JSON Schemas as `response_format: json_schema` (default true); false sends `json_object`. */
  readonly structuredOutputs?: boolean;
  /** Temperature used when a request does not set one. */
  readonly temperature?: number;
  /** Extra HTTP headers for every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra body fields for every request (e.g. vLLM's `top_k`, Ollama's `keep_alive`). */
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

/** Environment variables read by {@link resolveOpenAICompatibleConfig}. */
export const MODEL_ENV = {
  baseURL: 'TROUPE_MODEL_BASE_URL',
  apiKey: 'TROUPE_MODEL_API_KEY',
  model: 'TROUPE_MODEL',
} as const;

// Local servers (Ollama, llama.cpp, LM Studio) ignore the key but the wire format wants one.
const PLACEHOLDER_API_KEY = 'troupe-no-key';

const ConfigSchema = z.object({
  baseURL: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')),
  apiKey: z.string().min(1),
  model: z.string().trim().min(1),
  maxRetries: z.int().min(0).max(10).default(2),
  maxRetryAfterMs: z.int().min(0).max(3_600_000).default(30_000),
  timeoutMs: z.int().min(1).max(3_600_000).default(60_000),
  streamIdleTimeoutMs: z.int().min(1).max(3_600_000).default(30_000),
  streamUsage: z.boolean().default(true),
  structuredOutputs: z.boolean().default(true),
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
): OpenAICompatibleConfig {
  const candidate = {
    ...options,
    baseURL: options.baseURL ?? nonEmpty(env[MODEL_ENV.baseURL]),
    apiKey: options.apiKey ?? nonEmpty(env[MODEL_ENV.apiKey]) ?? PLACEHOLDER_API_KEY,
    model: options.model ?? nonEmpty(env[MODEL_ENV.model]),
  };
  const parsed = ConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new ModelError(
      'MODEL_CONFIG_INVALID',
      `Invalid OpenAI-compatible model configuration (options or ${MODEL_ENV.baseURL}/${MODEL_ENV.model}):\n${z.prettifyError(parsed.error)}`,
      { cause: parsed.error, details: { issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })) } },
    );
  }
  return parsed.data;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
