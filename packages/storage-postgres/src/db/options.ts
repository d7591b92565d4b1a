import { formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { PostgresStorageError } from '../errors.js';

/** Longest pause between two reconnect attempts (ms): the doubling of `reconnectDelayMs` stops here. */
export const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * The pause before reconnect attempt `retry + 1`: `reconnectDelayMs` doubled per retry, capped.
 * @param firstDelayMs - the configured `reconnectDelayMs`
 * @param retry - index of the failed attempt (0 for the first)
 */
export function reconnectDelay(firstDelayMs: number, retry: number): number {
  return Math.min(MAX_RECONNECT_DELAY_MS, firstDelayMs * 2 ** retry);
}

/** Options for `postgresStorage()`. Every field is optional; defaults are in the README. */
export interface PostgresStorageOptions {
  /** `postgresql://user:pass@host:port/db` (or `?host=/socket/dir`); default `$TROUPE_DATABASE_URL`. */
  readonly connectionString?: string;
  /**
   * Schema holding the tables (default `public`). One database can serve several independent
   * Troupe installations, one schema each. 1–63 of a-z, 0-9 and `_`, starting with a letter or `_`.
   */
  readonly schema?: string;
  /** Connections kept by this process (default 10). */
  readonly poolSize?: number;
  /** Server-side limit for one statement (default 30 000 ms); longer ones fail with PG_STATEMENT_TIMEOUT. */
  readonly statementTimeoutMs?: number;
  /** How long one connection attempt may take (default 10 000 ms). */
  readonly connectTimeoutMs?: number;
  /** Further connection attempts after a failed one, before a call fails with PG_UNAVAILABLE (default 3). */
  readonly reconnectAttempts?: number;
  /** Wait before the first reconnect attempt, doubled for each further one up to 30 s (default 200 ms). */
  readonly reconnectDelayMs?: number;
  /** Idle connections are closed after this long (default 30 000 ms). */
  readonly idleTimeoutMs?: number;
  /** `application_name` shown in `pg_stat_activity` (default `troupe`). */
  readonly applicationName?: string;
  /** How long a turn waits for another process's turn of the same session (default 600 000 ms: a slow model's whole turn). */
  readonly turnLockTimeoutMs?: number;
}

/** The options with every default filled in. */
export type ResolvedOptions = Required<PostgresStorageOptions>;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const OptionsSchema = z.strictObject({
  connectionString: z.string().min(1, 'must be a postgresql:// URL (or set TROUPE_DATABASE_URL)'),
  schema: z.string().regex(SCHEMA_NAME, 'must be 1–63 of a-z, 0-9 and "_", starting with a letter or "_"'),
  poolSize: z.number().int().min(1).max(1000),
  statementTimeoutMs: z.number().int().min(0).max(2_147_483_647),
  connectTimeoutMs: z.number().int().min(0).max(2_147_483_647),
  reconnectAttempts: z.number().int().min(0).max(100),
  reconnectDelayMs: z.number().int().min(0).max(600_000),
  idleTimeoutMs: z.number().int().min(0).max(2_147_483_647),
  applicationName: z.string().max(63).regex(/^[\x20-\x7e]*$/, 'must be printable ASCII'),
  turnLockTimeoutMs: z.number().int().min(1).max(2_147_483_647),
});

/**
 * Fills in defaults and validates the options (a trust boundary: they often come from the
 * environment).
 * @param options - what the caller passed
 * @param env - environment for `TROUPE_DATABASE_URL`
 * @throws {PostgresStorageError} PG_INVALID_OPTIONS listing every issue
 */
export function resolveOptions(options: PostgresStorageOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  const candidate = {
    connectionString: options.connectionString ?? env.TROUPE_DATABASE_URL ?? '',
    schema: options.schema ?? 'public',
    poolSize: options.poolSize ?? 10,
    statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    reconnectAttempts: options.reconnectAttempts ?? 3,
    reconnectDelayMs: options.reconnectDelayMs ?? 200,
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    applicationName: options.applicationName ?? 'troupe',
    turnLockTimeoutMs: options.turnLockTimeoutMs ?? 600_000,
    ...Object.fromEntries(Object.entries(options).filter(([key]) => !(key in DEFAULT_KEYS))),
  };
  const parsed = OptionsSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new PostgresStorageError('PG_INVALID_OPTIONS', `Invalid PostgreSQL storage options: ${formatIssues(parsed.error.issues, { root: 'options' })}`);
  }
  return parsed.data;
}

// Keys with defaults above; any other key is passed through so the strict schema reports it.
const DEFAULT_KEYS = {
  connectionString: 1,
  schema: 1,
  poolSize: 1,
  statementTimeoutMs: 1,
  connectTimeoutMs: 1,
  reconnectAttempts: 1,
  reconnectDelayMs: 1,
  idleTimeoutMs: 1,
  applicationName: 1,
  turnLockTimeoutMs: 1,
};

/**
 * A schema name as a quoted SQL identifier. Only ever called with a name that matched the
 * allowlist, so the quoting is belt and braces.
 * @param schema - a validated schema name
 */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new PostgresStorageError('PG_INVALID_OPTIONS', `Invalid schema name ${JSON.stringify(schema)}`);
  return `"${schema}"`;
}
