import { defineErrorClass, type TroupeErrorOptions } from '@troupe/kernel';

/**
 * Stable error codes of `@troupe/model-openai-compatible`. Codes never change meaning once
 * released; match on `code`, not on the message.
 * - `MODEL_CONFIG_INVALID` — options or environment variables are missing or malformed.
 * - `MODEL_UNREACHABLE` — no connection to the server (refused, DNS, reset) after the retries.
 * - `MODEL_TIMEOUT` — the server did not answer (or stopped streaming) within the timeout.
 * - `MODEL_UNAUTHORIZED` — HTTP 401/403: the API key is missing, wrong or lacks access.
 * - `MODEL_NOT_FOUND` — HTTP 404: the model (or the endpoint) does not exist on this server.
 * - `MODEL_CONTEXT_TOO_LONG` — the prompt exceeds the model's context window.
 * - `MODEL_RATE_LIMITED` — HTTP 429 after the retries, or a 429/503 asking to wait longer than `maxRetryAfterMs`.
 * - `MODEL_BAD_REQUEST` — another 4xx: the server rejected the request.
 * - `MODEL_SERVER_ERROR` — HTTP 5xx after the retries.
 * - `MODEL_RESPONSE_INVALID` — a non-streaming response did not have the OpenAI shape.
 * - `MODEL_STREAM_MALFORMED` — a streamed chunk was not JSON / not the OpenAI shape, or the
 *   stream ended before anything (content, reasoning or a tool call) arrived.
 * - `MODEL_JSON_INVALID` — JSON output still failed validation after the one corrective retry.
 * - `MODEL_REASONING_ONLY` — the model reasoned but gave no answer (no content, no tool call);
 *   usually the response length ran out while thinking (`details.finishReason`, `details.reasoning`).
 * - `MODEL_TOOLS_UNSUPPORTED` — the server (or the `tools` setting) does not support tool calling;
 *   the model's `capabilities.tools` is `false` from then on.
 * - `MODEL_CONTENT_FILTERED` — the server's content filter ended the answer before any text
 *   (`finish_reason: content_filter`).
 * - `MODEL_FAILED` — anything else.
 */
export type ModelErrorCode =
  | 'MODEL_CONFIG_INVALID'
  | 'MODEL_UNREACHABLE'
  | 'MODEL_TIMEOUT'
  | 'MODEL_UNAUTHORIZED'
  | 'MODEL_NOT_FOUND'
  | 'MODEL_CONTEXT_TOO_LONG'
  | 'MODEL_RATE_LIMITED'
  | 'MODEL_BAD_REQUEST'
  | 'MODEL_SERVER_ERROR'
  | 'MODEL_RESPONSE_INVALID'
  | 'MODEL_STREAM_MALFORMED'
  | 'MODEL_JSON_INVALID'
  | 'MODEL_REASONING_ONLY'
  | 'MODEL_TOOLS_UNSUPPORTED'
  | 'MODEL_CONTENT_FILTERED'
  | 'MODEL_FAILED';

/** The extra fields of a {@link ModelError}. */
export interface ModelErrorFields {
  /** HTTP status, when the server answered. */
  readonly status: number;
  /** Id of the model involved, e.g. `openai-compatible:qwen2.5`. */
  readonly modelId: string;
}

/** Options accepted by {@link ModelError}: cause, details, HTTP status and model id. */
export type ModelErrorOptions = TroupeErrorOptions & Partial<ModelErrorFields>;

/**
 * The one error type this package throws (cancellation aside, which rejects with the abort
 * reason). `ModelError.isInstance(error)` works across package copies.
 */
export class ModelError extends defineErrorClass<ModelErrorCode, ModelErrorFields>('ModelError') {}
