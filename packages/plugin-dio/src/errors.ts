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
  | 'DIO_INVALID_REQUEST';

/** Whether retrying the same request later could succeed. */
export type DioFailureClass = 'permanent' | 'transient';

const TRANSIENT_CODES: ReadonlySet<DioErrorCode> = new Set(['DIO_HTTP_TRANSIENT', 'DIO_NETWORK', 'DIO_TIMEOUT']);
const DIO_ERROR_MARKER = Symbol.for('@troupe/plugin-dio/DioError');

/** Options of {@link DioError}. */
export interface DioErrorOptions {
  readonly cause?: unknown;
  /** HTTP status, when the service answered. */
  readonly status?: number;
  /** The operation that failed (`schedule`, `waitForTerminal`, `activePrompt`). */
  readonly operation?: string;
}

/**
 * The one error type the DIO client throws (cancellation aside: an aborted call rejects with the
 * signal's reason). `failureClass` tells permanent from transient failures.
 */
export class DioError extends Error {
  /** Stable code. */
  readonly code: DioErrorCode;
  /** `transient` for 429/5xx/network/timeout, otherwise `permanent`. */
  readonly failureClass: DioFailureClass;
  /** HTTP status when the service answered. */
  readonly status: number | undefined;
  /** The client operation that failed. */
  readonly operation: string | undefined;
  readonly [DIO_ERROR_MARKER] = true;

  /**
   * @param code - stable code
   * @param message - what went wrong, for a developer
   * @param options - cause, status and operation
   */
  constructor(code: DioErrorCode, message: string, options: DioErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DioError';
    this.code = code;
    this.failureClass = TRANSIENT_CODES.has(code) ? 'transient' : 'permanent';
    this.status = options.status;
    this.operation = options.operation;
  }

  /**
   * True for a DioError from any copy of this package.
   * @param value - anything thrown
   */
  static isInstance(value: unknown): value is DioError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DIO_ERROR_MARKER] === true;
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
