import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ModelError } from './model-error.js';
import { NOT_AN_API_HEADER } from './server-error.js';

const CONTEXT_TOO_LONG = /context[_ ]length|maximum context|context (?:size|window)|too many tokens|exceed_context|prompt is too long|reduce the length/i;

/** Where the wait for an answer is set, for the messages of a `MODEL_TIMEOUT` before the first token. */
export const TIMEOUT_SETTING = 'TROUPE_MODEL_TIMEOUT_MS, or the timeout in the model settings';

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
    return new ModelError('MODEL_TIMEOUT', `${modelId}: the server at ${baseURL} did not answer in time (${TIMEOUT_SETTING}).`, { cause: error, modelId });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('MODEL_UNREACHABLE', `${modelId}: cannot reach the model server at ${baseURL} (${describeCause(error)}). Is it running?`, {
      cause: error,
      modelId,
    });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const serverMessage = serverMessageOf(error);
    const options = { cause: error, status, modelId };
    if (error.headers?.get(NOT_AN_API_HEADER)) return new ModelError('MODEL_RESPONSE_INVALID', `${modelId}: ${serverMessage}.`, { cause: error, modelId });
    if (status === 401 || status === 403) {
      return new ModelError('MODEL_UNAUTHORIZED', `${modelId}: the server rejected the API key (HTTP ${status}): ${serverMessage}. Check the API key set for this model (or TROUPE_MODEL_API_KEY).`, options);
    }
    if (status === 404) {
      return new ModelError('MODEL_NOT_FOUND', `${modelId}: model not found at ${baseURL} (HTTP 404): ${serverMessage}`, options);
    }
    if (CONTEXT_TOO_LONG.test(serverMessage) || String((error as { code?: unknown }).code) === 'context_length_exceeded') {
      return new ModelError('MODEL_CONTEXT_TOO_LONG', `${modelId}: the prompt is longer than the model's context window: ${serverMessage}`, options);
    }
    if (status === 429) return new ModelError('MODEL_RATE_LIMITED', `${modelId}: rate limited (HTTP 429) after retries: ${serverMessage}`, options);
    if (status >= 500) return new ModelError('MODEL_SERVER_ERROR', `${modelId}: server error (HTTP ${status}) after retries: ${serverMessage}`, options);
    return new ModelError('MODEL_BAD_REQUEST', `${modelId}: the server rejected the request (HTTP ${status}): ${serverMessage}`, options);
  }
  if (error instanceof APIError) {
    // An `error` object sent inside an already-started stream has no HTTP status.
    return new ModelError('MODEL_SERVER_ERROR', `${modelId}: the server reported an error mid-stream: ${error.message}`, { cause: error, modelId });
  }
  // undici ends a response body whose connection closed early with `TypeError: terminated`
  // (the socket's error as its cause).
  if (error instanceof TypeError && error.message === 'terminated') {
    return new ModelError('MODEL_SERVER_ERROR', `${modelId}: the server at ${baseURL} closed the connection before the answer was complete (${describeCause(error)}).`, { cause: error, modelId });
  }
  if (error instanceof SyntaxError) {
    return new ModelError('MODEL_STREAM_MALFORMED', `${modelId}: the server sent data that is not JSON: ${error.message}`, { cause: error, modelId });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('MODEL_FAILED', `${modelId}: model call failed: ${message}`, { cause: error, modelId });
}

/**
 * The server's own message of an HTTP error (the body is normalised by `normalizingFetch`, so
 * every server's shape arrives as `error.message`).
 * @param error - an SDK HTTP error
 */
export function serverMessageOf(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === 'string' && body.message !== '') return body.message;
  return error.message.replace(/^\d{3}\s+/, '');
}

/**
 * Whether a failure is the server refusing the request as such: HTTP 400 or 422 that is not
 * about the prompt's length — the answer a server gives to a field it does not know — or a 500
 * whose message names the field (llama.cpp answered an unknown `response_format` type with 500).
 * @param error - what the SDK threw
 * @param field - words that name the field in a 500's message
 */
export function isRequestRejection(error: unknown, field?: RegExp): error is APIError {
  if (!(error instanceof APIError) || typeof error.status !== 'number') return false;
  const message = serverMessageOf(error);
  if (error.status === 500) return field?.test(message) === true;
  return (error.status === 400 || error.status === 422) && !CONTEXT_TOO_LONG.test(message);
}

/**
 * Whether a failure says the server cannot do tool calling: Ollama "does not support tools"
 * (400), vLLM without `--enable-auto-tool-choice` (400), llama.cpp without `--jinja` (400/500).
 * @param error - what the SDK threw for a request that carried `tools`
 */
export function isToolsRejection(error: unknown): error is APIError {
  if (!(error instanceof APIError) || typeof error.status !== 'number') return false;
  if (error.status !== 400 && error.status !== 422 && error.status !== 500 && error.status !== 501) return false;
  return /\btools?\b|tool[_ ]choice|function[_ ]call/i.test(serverMessageOf(error));
}

function describeCause(error: Error): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = cause && typeof cause.code === 'string' ? cause.code : undefined;
  return code ?? (cause && typeof cause.message === 'string' ? cause.message : error.message);
}
