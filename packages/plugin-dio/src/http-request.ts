import { abortReason, type Clock, linkedController } from '@troupe/kernel';
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
  readonly method: 'GET' | 'POST';
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
 * transient; other 4xx and unparseable bodies are permanent. Cancellation is not a failure: when
 * `signal` aborts, this rejects with its reason.
 * @param request - the call
 * @returns status and parsed JSON body
 * @throws {DioError} DIO_HTTP_PERMANENT, DIO_HTTP_TRANSIENT, DIO_NETWORK, DIO_TIMEOUT, DIO_INVALID_RESPONSE
 */
export async function requestJson(request: JsonRequest): Promise<JsonResponse> {
  const { signal, operation } = request;
  if (signal.aborted) throw abortReason(signal);
  const { controller, dispose } = linkedController(signal);
  const timer = new AbortController();
  let timedOut = false;
  // The timeout sleeps on the injected clock; aborting `timer` in `finally` removes the sleeper,
  // so no timer outlives the request.
  request.clock.sleep(request.timeoutMs, timer.signal).then(
    () => {
      timedOut = true;
      controller.abort(new DOMException(`${operation} timed out after ${request.timeoutMs} ms`, 'TimeoutError'));
    },
    () => {},
  );
  try {
    let status: number;
    let text: string;
    try {
      const response = await request.fetch(request.url, {
        method: request.method,
        headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: controller.signal,
      });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      if (signal.aborted) throw abortReason(signal);
      if (timedOut) throw new DioError('DIO_TIMEOUT', `${operation}: no answer within ${request.timeoutMs} ms`, { cause, operation });
      throw new DioError('DIO_NETWORK', `${operation}: the DIO service could not be reached (${describeCause(cause)})`, { cause, operation });
    }
    if (signal.aborted) throw abortReason(signal);
    if (status === 429 || status >= 500) {
      throw new DioError('DIO_HTTP_TRANSIENT', `${operation}: the DIO service answered ${status}${snippet(text)}`, { status, operation });
    }
    if (request.passStatuses?.includes(status)) return { status, json: undefined };
    if (status < 200 || status >= 300) {
      throw new DioError('DIO_HTTP_PERMANENT', `${operation}: the DIO service answered ${status}${snippet(text)}`, { status, operation });
    }
    if (Buffer.byteLength(text, 'utf8') > MAX_RESPONSE_BYTES) {
      throw new DioError('DIO_INVALID_RESPONSE', `${operation}: the response is larger than ${MAX_RESPONSE_BYTES} bytes`, { status, operation });
    }
    try {
      return { status, json: JSON.parse(text) };
    } catch (cause) {
      throw new DioError('DIO_INVALID_RESPONSE', `${operation}: the response is not JSON${snippet(text)}`, { cause, status, operation });
    }
  } finally {
    timer.abort();
    dispose();
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: { code?: unknown } }).cause?.code;
  return typeof inner === 'string' ? `${cause.message}: ${inner}` : cause.message;
}

// A short excerpt of the body helps diagnosis; never more (it could echo player text).
function snippet(text: string): string {
  const trimmed = text.trim();
  return trimmed.length === 0 ? '' : `: ${trimmed.slice(0, 120)}`;
}
