import { KernelStorageError } from '@troupe/kernel';
import { PostgresStorageError, type PostgresStorageErrorCode } from '../errors.js';

// SQLSTATE classes and node-level codes that mean "the connection is gone", as opposed to "this
// statement was wrong". 57P01–57P03: admin shutdown / crash shutdown / cannot connect now;
// class 08: connection exceptions.
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);
const CONNECTION_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const CONNECTION_MESSAGES = /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i;

/** The SQLSTATE of a `pg` error, if it has one. */
export function sqlstateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * True when the error means the connection itself failed (so the client must be discarded and
 * the next call should reconnect).
 * @param error - anything thrown by `pg`
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_SQLSTATES.has(code) || CONNECTION_NODE_CODES.has(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}

/**
 * The package error a `pg` failure stands for.
 * @param error - anything thrown by `pg`
 * @param what - the operation, for the message (e.g. `commit "story-1"`)
 */
export function toPostgresError(error: unknown, what: string): PostgresStorageError {
  if (PostgresStorageError.isInstance(error)) return error;
  const sqlstate = sqlstateOf(error);
  const reason = (error as Error | null)?.message ?? String(error);
  const make = (code: PostgresStorageErrorCode, message: string) => new PostgresStorageError(code, message, { cause: error, details: sqlstate ? { sqlstate } : undefined });
  if (isConnectionError(error)) {
    return make('PG_CONNECTION_LOST', `The connection to PostgreSQL was lost during ${what} (${reason}); the call did not finish. The next call reconnects.`);
  }
  if (sqlstate === '57014') return make('PG_STATEMENT_TIMEOUT', `PostgreSQL cancelled ${what}: it ran longer than the statement timeout (statementTimeoutMs). Nothing was saved.`);
  if (sqlstate === '42P01' || sqlstate === '3F000') {
    return make('PG_SCHEMA_OUTDATED', `The Troupe tables are missing for ${what} (${reason}); run migrate() once before using the storage.`);
  }
  return make('PG_QUERY_FAILED', `PostgreSQL failed during ${what}: ${reason}`);
}

/**
 * A store-call failure as the kernel's storage error: `KernelStorageError`s pass through, anything
 * from the database becomes `STORAGE_IO` with the {@link PostgresStorageError} as `cause`.
 * @param error - anything thrown while running a store call
 * @param what - the operation, for the message
 */
export function toStorageError(error: unknown, what: string): unknown {
  if (KernelStorageError.isInstance(error)) return error;
  if (typeof DOMException !== 'undefined' && error instanceof DOMException && error.name === 'AbortError') return error;
  const cause = toPostgresError(error, what);
  return new KernelStorageError('STORAGE_IO', cause.message, { cause, details: { reason: cause.code } });
}
