import { abortReason, readCappedText, retryAfterMs, runWithin } from '@troupe/kernel/util';
import type { Clock } from '@troupe/kernel';
import { DioError } from './errors.js';

/** The subset of `fetch` the client uses (Node's global fetch fits; tests inject their own). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Largest response body the client reads (bytes); a bigger one is an invalid response. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** One HTTP call. */
export interface JsonRequest {
  readonly fetch: FetchLike;
  readonly clock: Clock;
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** Timeout of this one request, run on `clock` so tests control it. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly operation: string;
  /** Non-2xx statuses the caller handles itself (e.g. 404 = "none"). */
  readonly passStatuses?: readonly number[];
}

/** A response whose body parsed as JSON (or `undefined` for a passed-through status). */
export interface JsonResponse {
  readonly status: number;
  readonly json: unknown;
}

/**
 * Sends one request and classifies every failure: 429/5xx, connection errors and timeouts are
 * transient; other 4xx, unparseable bodies and bodies over {@link MAX_RESPONSE_BYTES} are
 * permanent. The body is read incrementally and the connection is dropped as soon as it passes
 * the cap. Header values (the player's authorization) are redacted from every error message.
 * Cancellation is not a failure: when `signal` aborts, this rejects with its reason.
 * @param request - the call
 * @returns status and parsed JSON body
 * @throws {DioError} DIO_HTTP_PERMANENT, DIO_HTTP_TRANSIENT, DIO_NETWORK, DIO_TIMEOUT, DIO_INVALID_RESPONSE
 */
export function requestJson(request: JsonRequest): Promise<JsonResponse> {
  const { signal, operation } = request;
  // One deadline on the injected clock covers the body as well as the headers; at the limit the
  // request's own signal aborts (dropping the connection) and this rejects with DIO_TIMEOUT at
  // once, even if the transport ignores its signal. No timer outlives the request.
  const timeout = () => new DioError('DIO_TIMEOUT', `${operation}: no answer within ${request.timeoutMs} ms`, { operation });
  return runWithin(request.clock, request.timeoutMs, signal, timeout, (requestSignal) => exchange(request, requestSignal));
}

async function exchange(request: JsonRequest, requestSignal: AbortSignal): Promise<JsonResponse> {
  const { operation } = request;
  const redact = redactor(Object.values(request.headers));
  const transportFailure = (cause: unknown): unknown => {
    if (requestSignal.aborted) return abortReason(requestSignal);
    return new DioError('DIO_NETWORK', `${operation}: the DIO service could not be reached (${redact(describeCause(cause))})`, { cause, operation });
  };
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      method: request.method,
      headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: requestSignal,
    });
  } catch (cause) {
    throw transportFailure(cause);
  }
  const status = response.status;
  let text: string | undefined;
  try {
    text = await readCapped(response, MAX_RESPONSE_BYTES);
  } catch (cause) {
    throw transportFailure(cause);
  }
  if (requestSignal.aborted) throw abortReason(requestSignal);
  const excerpt = snippet(text ?? '', redact);
  if (status === 429 || status >= 500) {
    // The wait the service asked for; the retry loop honours it only within its budget.
    const asked = retryAfterMs(response.headers, request.clock.now());
    throw new DioError('DIO_HTTP_TRANSIENT', `${operation}: the DIO service answered ${status}${asked === undefined ? '' : ` (Retry-After ${Math.round(asked)} ms)`}${excerpt}`, {
      status,
      operation,
      ...(asked === undefined ? {} : { details: { retryAfterMs: asked } }),
    });
  }
  if (request.passStatuses?.includes(status)) return { status, json: undefined };
  if (status < 200 || status >= 300) {
    throw new DioError('DIO_HTTP_PERMANENT', `${operation}: the DIO service answered ${status}${excerpt}`, { status, operation });
  }
  if (text === undefined) {
    throw new DioError('DIO_INVALID_RESPONSE', `${operation}: the response is larger than ${MAX_RESPONSE_BYTES} bytes`, { status, operation });
  }
  try {
    return { status, json: JSON.parse(text) };
  } catch (cause) {
    throw new DioError('DIO_INVALID_RESPONSE', `${operation}: the response is not JSON${excerpt}`, { cause, status, operation });
  }
}

/**
 * Reads a body with the kernel's capped reader; a declared `content-length` over the cap is
 * refused before reading anything, and the stream is cancelled (dropping the connection) as soon
 * as it passes `maxBytes`, so an endless or huge answer never fills memory.
 * @param response - the response whose body to read
 * @param maxBytes - the cap
 * @returns the text, or `undefined` when the body is larger than the cap
 */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  return readCappedText(response.body, maxBytes);
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: { code?: unknown } }).cause?.code;
  return typeof inner === 'string' ? `${cause.message}: ${inner}` : cause.message;
}

/**
 * Builds a function that blanks out every header value (whole, and the credential after a
 * scheme such as `Bearer `), so a service that echoes the player's authorization back never
 * puts it in an error message, a log line or a session event.
 */
function redactor(values: readonly string[]): (text: string) => string {
  const secrets = new Set<string>();
  for (const value of values) {
    if (value.length >= 4) secrets.add(value);
    const credential = /^\S+\s+(\S{4,})$/.exec(value)?.[1];
    if (credential) secrets.add(credential);
  }
  // Longest first, so a whole header is replaced before its credential part.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}

// A short excerpt of the body helps diagnosis; never more (it could echo player text).
function snippet(text: string, redact: (text: string) => string): string {
  const trimmed = text.trim();
  return trimmed.length === 0 ? '' : `: ${redact(trimmed).slice(0, 120)}`;
}
