import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ModelError } from './model-error.js';

const CONTEXT_TOO_LONG = /context[_ ]length|maximum context|context (?:size|window)|too many tokens|exceed_context|prompt is too long|reduce the length/i;

/**
 * Turns an SDK or parsing failure into a {@link ModelError} with a stable code. Callers check
 * `signal.aborted` first: an abort is never mapped, it rejects with the abort reason.
 * @param error - what the SDK threw
 * @param modelId - the model involved
 * @param baseURL - the server, for messages
 * @returns the ModelError to throw
 */
export function toModelError(error: unknown, modelId: string, baseURL: string): ModelError {
  if (ModelError.isInstance(error)) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('MODEL_TIMEOUT', `${modelId}: the server at ${baseURL} did not answer in time.`, { cause: error, modelId });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('MODEL_UNREACHABLE', `${modelId}: cannot reach the model server at ${baseURL} (${describeCause(error)}). Is it running?`, {
      cause: error,
      modelId,
    });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const serverMessage = error.message;
    const options = { cause: error, status, modelId };
    if (status === 401 || status === 403) {
      return new ModelError('MODEL_UNAUTHORIZED', `${modelId}: the server rejected the API key (HTTP ${status}). Check TROUPE_MODEL_API_KEY.`, options);
    }
    if (status === 404) {
      return new ModelError('MODEL_NOT_FOUND', `${modelId}: model not found at ${baseURL} (HTTP 404): ${serverMessage}`, options);
    }
    if (CONTEXT_TOO_LONG.test(serverMessage) || String((error as { code?: unknown }).code) === 'context_length_exceeded') {
      return new ModelError('MODEL_CONTEXT_TOO_LONG', `${modelId}: the prompt is longer than the model's context window: ${serverMessage}`, options);
    }
    if (status === 429) return new ModelError('MODEL_RATE_LIMITED', `${modelId}: rate limited (HTTP 429) after retries.`, options);
    if (status >= 500) return new ModelError('MODEL_SERVER_ERROR', `${modelId}: server error (HTTP ${status}) after retries: ${serverMessage}`, options);
    return new ModelError('MODEL_BAD_REQUEST', `${modelId}: the server rejected the request (HTTP ${status}): ${serverMessage}`, options);
  }
  if (error instanceof APIError) {
    // An `error` object sent inside an already-started stream has no HTTP status.
    return new ModelError('MODEL_SERVER_ERROR', `${modelId}: the server reported an error mid-stream: ${error.message}`, { cause: error, modelId });
  }
  if (error instanceof SyntaxError) {
    return new ModelError('MODEL_STREAM_MALFORMED', `${modelId}: the server sent data that is not JSON: ${error.message}`, { cause: error, modelId });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('MODEL_FAILED', `${modelId}: model call failed: ${message}`, { cause: error, modelId });
}

function describeCause(error: Error): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = cause && typeof cause.code === 'string' ? cause.code : undefined;
  return code ?? (cause && typeof cause.message === 'string' ? cause.message : error.message);
}
