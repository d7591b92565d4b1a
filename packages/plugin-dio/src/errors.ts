import { defineErrorClass, type TroupeErrorOptions } from '@troupe/kernel';

/**
 * Stable codes of {@link DioError}. Codes never change meaning once released; match on `code`.
 * - `DIO_HTTP_PERMANENT` — the service answered 4xx (other than 429): retrying cannot help.
 * - `DIO_HTTP_TRANSIENT` — 429 or 5xx: retried within the budget, then reported.
 * - `DIO_NETWORK` — connection refused/reset before a response (transient).
 * - `DIO_TIMEOUT` — one request exceeded its timeout (transient).
 * - `DIO_INVALID_RESPONSE` — the body is not JSON or does not match the wire format (permanent).
 * - `DIO_IDENTITY_MISMATCH` — an acceptance or task echoed ids other than the ones submitted.
 * - `DIO_HASH_MISMATCH` — the compiled prompt's SHA-256 differs from the one sent with it.
 * - `DIO_WAIT_BUDGET_EXHAUSTED` — the task was still not terminal when the wait budget ran out.
 * - `DIO_INVALID_REQUEST` — the caller passed ids or text the wire format does not allow.
 * - `DIO_UNSUPPORTED` — the service has no such endpoint (404/405), e.g. a service without fork.
 */
export type DioErrorCode =
  | 'DIO_HTTP_PERMANENT'
  | 'DIO_HTTP_TRANSIENT'
  | 'DIO_NETWORK'
  | 'DIO_TIMEOUT'
  | 'DIO_INVALID_RESPONSE'
  | 'DIO_IDENTITY_MISMATCH'
  | 'DIO_HASH_MISMATCH'
  | 'DIO_WAIT_BUDGET_EXHAUSTED'
  | 'DIO_INVALID_REQUEST'
  | 'DIO_UNSUPPORTED';

/** Whether retrying the same request later could succeed. */
export type DioFailureClass = 'permanent' | 'transient';

const TRANSIENT_CODES: ReadonlySet<DioErrorCode> = new Set(['DIO_HTTP_TRANSIENT', 'DIO_NETWORK', 'DIO_TIMEOUT']);
/** The extra fields of a {@link DioError}. */
export interface DioErrorFields {
  /** HTTP status, when the service answered. */
  readonly status: number;
  /** The operation that failed (`schedule`, `waitForTerminal`, `activePrompt`). */
  readonly operation: string;
}

/** Options of {@link DioError}: cause, details, HTTP status and operation. */
export type DioErrorOptions = TroupeErrorOptions & Partial<DioErrorFields>;

/**
 * The one error type the DIO client throws (cancellation aside: an aborted call rejects with the
 * signal's reason). `failureClass` tells permanent from transient failures.
 */
export class DioError extends defineErrorClass<DioErrorCode, DioErrorFields>('DioError') {
  /** `transient` for 429/5xx/network/timeout, otherwise `permanent`. */
  get failureClass(): DioFailureClass {
    return TRANSIENT_CODES.has(this.code) ? 'transient' : 'permanent';
  }
}

/**
 * True when a failure may succeed on retry.
 * @param error - anything thrown
 * @returns true for transient {@link DioError}s
 */
export function isTransient(error: unknown): boolean {
  return DioError.isInstance(error) && error.failureClass === 'transient';
}
