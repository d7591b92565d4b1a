import { defineErrorClass } from '@troupe/kernel';

/**
 * Stable codes of {@link PostgresStorageError}. Store calls (`TreeStore` / `SessionLog`) report
 * database trouble as the kernel's `STORAGE_IO` with one of these errors as `cause`; `migrate()`,
 * the options and the turn lock throw them directly.
 */
export type PostgresStorageErrorCode =
  /** The options given to `postgresStorage()` are invalid (the message lists the issues). */
  | 'PG_INVALID_OPTIONS'
  /** The connection broke during the call (server restart, `pg_terminate_backend`, network). The next call reconnects. */
  | 'PG_CONNECTION_LOST'
  /** No connection could be made after the configured reconnect attempts. */
  | 'PG_UNAVAILABLE'
  /** A statement ran longer than `statementTimeoutMs`. */
  | 'PG_STATEMENT_TIMEOUT'
  /** The schema is missing or older than this package: run `migrate()`. */
  | 'PG_SCHEMA_OUTDATED'
  /** The database was migrated by a newer version of this package. */
  | 'PG_SCHEMA_TOO_NEW'
  /** A migration failed, or an applied migration differs from the one shipped. Nothing was changed. */
  | 'PG_MIGRATION_FAILED'
  /** The storage was closed. */
  | 'PG_CLOSED'
  /** Any other database error (the SQLSTATE is in `details.sqlstate`). */
  | 'PG_QUERY_FAILED';

/** Error of `@troupe/storage-postgres`; `PostgresStorageError.isInstance` works across package copies. */
export class PostgresStorageError extends defineErrorClass<PostgresStorageErrorCode>('PostgresStorageError') {}
