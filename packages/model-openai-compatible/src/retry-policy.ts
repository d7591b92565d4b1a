import { retryAfterMs as headerRetryAfterMs, retryWithDelays } from '@troupe/kernel/util';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ModelError } from './model-error.js';

/** How failed requests are retried (the `openai` SDK's own retries are switched off). */
export interface RetrySettings {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Longest `Retry-After` honoured (ms); a server asking for more fails the call at once. */
  readonly maxRetryAfterMs: number;
}

/** First backoff pause when the server gives no `Retry-After` (ms); it doubles per retry. */
export const INITIAL_BACKOFF_MS = 500;
/** Longest backoff pause when the server gives no `Retry-After` (ms). */
export const MAX_BACKOFF_MS = 8_000;

/**
 * Runs `attempt` and retries it on connection errors and HTTP 408/409/429/5xx, like the SDK
 * would, but with two differences that matter for a turn: every pause listens to `signal` (an
 * abort ends the wait at once and rejects with the abort reason; the pauses are an Effect schedule
 * in the kernel's `retryWithDelays`), and a `Retry-After` longer than
 * `maxRetryAfterMs` is not waited for — the call fails with `MODEL_RATE_LIMITED` naming the wait,
 * so a session is never frozen for the length of a server's `Retry-After: 600`.
 * @param settings - retry count and the `Retry-After` cap
 * @param signal - cancels the attempts and the pauses between them
 * @param modelId - for error messages
 * @param attempt - one request
 * @returns the first successful result
 * @throws the last failure; {@link ModelError} MODEL_RATE_LIMITED when the server asks for a wait
 *   beyond the cap; the abort reason when cancelled
 */
export function withRetries<T>(settings: RetrySettings, signal: AbortSignal, modelId: string, attempt: () => Promise<T>): Promise<T> {
  return retryWithDelays({
    signal,
    attempt,
    delayBeforeRetry: (error, retry) => {
      if (!isRetryable(error)) return undefined;
      const asked = retryAfterMs(error);
      if (asked !== undefined && asked > settings.maxRetryAfterMs) {
        const status = (error as APIError).status;
        throw new ModelError(
          'MODEL_RATE_LIMITED',
          `${modelId}: the server asked to wait ${formatWait(asked)} before retrying (HTTP ${status}), longer than the ${formatWait(settings.maxRetryAfterMs)} this client waits.`,
          { cause: error, modelId, ...(typeof status === 'number' ? { status } : {}), details: { retryAfterMs: asked, maxRetryAfterMs: settings.maxRetryAfterMs } },
        );
      }
      if (retry >= settings.maxRetries) return undefined;
      return asked ?? Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** retry);
    },
  });
}

/**
 * Whether a failure is worth retrying: no connection, or HTTP 408, 409, 429 and 5xx — unless the
 * server said `x-should-retry: false`. A timeout is not: the attempt already had the whole wait,
 * and a server that needs longer (a model loading) would only be asked again to start over.
 * @param error - what one attempt threw
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIConnectionTimeoutError) return false;
  if (error instanceof APIConnectionError) return true;
  if (!(error instanceof APIError) || typeof error.status !== 'number') return false;
  const hint = error.headers?.get('x-should-retry');
  if (hint === 'true') return true;
  if (hint === 'false') return false;
  return error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500;
}

/**
 * The wait a server asked for: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date
 * (read by the kernel's `retryAfterMs`).
 * @param error - what one attempt threw
 * @param now - the current time, for an HTTP-date `Retry-After`
 * @returns milliseconds, or `undefined` when the server did not say
 */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  return error instanceof APIError ? headerRetryAfterMs(error.headers, now) : undefined;
}

function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}
