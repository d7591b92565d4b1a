import { retryWithDelays } from '@troupe/kernel/util';
import pg from 'pg';
import { PostgresStorageError } from '../errors.js';
import { checkSchema } from '../migrations/migrate.js';
import { isConnectionError, toPostgresError, toStorageError } from './pg-error-map.js';
import { type ResolvedOptions, reconnectDelay } from './options.js';

/** What a query returns: the rows as plain objects. */
export type Row = Record<string, unknown>;

/** A connection inside a transaction (or a dedicated session): run statements on it. */
export interface Queryable {
  /**
   * Runs one statement. Values are always bound parameters, never spliced into the text.
   * @param text - SQL with `$1…` placeholders
   * @param values - the parameters
   */
  query(text: string, values?: readonly unknown[]): Promise<Row[]>;
}

/**
 * The connection pool of one storage: statements with bound parameters, transactions, dedicated
 * sessions (for advisory locks and LISTEN), and the error policy. A connection that breaks fails
 * the call it was serving (it may or may not have committed, so it is never retried blindly) and
 * is discarded; the next call takes a fresh one, retrying the connect `reconnectAttempts` times.
 */
export class Database {
  readonly options: ResolvedOptions;
  readonly #pool: pg.Pool;
  #closed = false;
  // Aborted by close(): ends a call waiting in a reconnect pause.
  readonly #closing = new AbortController();
  // Checked once per process on the first store call, so a database nobody migrated fails
  // with PG_SCHEMA_OUTDATED ("run migrate()") instead of a bare "relation does not exist".
  #schemaChecked = false;

  /** @param options - validated options */
  constructor(options: ResolvedOptions) {
    this.options = options;
    this.#pool = new pg.Pool(Database.clientConfig(options));
    // An idle connection whose backend ends (restart, pg_terminate_backend) emits 'error' on the
    // pool; the pool already discards it, and the next call opens a new one. Without a listener
    // Node would crash the process.
    this.#pool.on('error', () => {});
  }

  /**
   * The `pg` client settings for these options (also used for dedicated LISTEN connections).
   * @param options - validated options
   */
  static clientConfig(options: ResolvedOptions): pg.PoolConfig {
    return {
      connectionString: options.connectionString,
      max: options.poolSize,
      idleTimeoutMillis: options.idleTimeoutMs,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs === 0 ? undefined : options.statementTimeoutMs,
      application_name: options.applicationName,
      keepAlive: true,
      // The schema is fixed per connection, so no statement ever names it (the tables are found
      // through the search path). The name passed the options allowlist.
      options: `-c search_path=${options.schema}`,
    };
  }

  /**
   * Runs one statement on any pooled connection.
   * @param what - the operation, for error messages
   * @param text - SQL with placeholders
   * @param values - bound parameters
   */
  async query(what: string, text: string, values: readonly unknown[] = []): Promise<Row[]> {
    return this.withClient(what, (client) => client.query(text, values));
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED) and commits; any error rolls back, so either
   * everything `work` wrote is committed or nothing is.
   * @param what - the operation, for error messages
   * @param work - the statements
   */
  async transaction<T>(what: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.withClient(what, async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A broken connection cannot roll back; the server rolls back when it notices.
        if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  /**
   * Lends one connection for `work` (a session: advisory locks, several transactions), mapping
   * failures to the kernel's `STORAGE_IO` (`KernelStorageError`s from `work` pass through).
   * @param what - the operation, for error messages
   * @param work - uses the connection; must not keep it
   */
  async withClient<T>(what: string, work: (client: Queryable) => Promise<T>): Promise<T> {
    try {
      return await this.withRawClient(what, async (client) => {
        if (!this.#schemaChecked) {
          await checkSchema(client, this.options.schema);
          this.#schemaChecked = true;
        }
        return work(client);
      });
    } catch (error) {
      throw toStorageError(error, what);
    }
  }

  /**
   * Like {@link withClient} but lets `pg` and {@link PostgresStorageError}s through unchanged
   * (for `migrate()` and the turn lock, which throw the package's own errors).
   */
  async withRawClient<T>(what: string, work: (client: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#connect(what);
    let broken: unknown;
    // A checked-out client reports a dropped connection as an 'error' event too (besides
    // rejecting the running query); unheard, Node would crash the process.
    const onError = (error: unknown) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      return await work({ query: async (text, values) => (await client.query(text, values as unknown[])).rows as Row[] });
    } catch (error) {
      if (isConnectionError(error)) broken ??= error;
      throw error;
    } finally {
      client.off('error', onError);
      // A broken connection is destroyed, never handed to the next call.
      client.release(broken === undefined ? undefined : (broken as Error));
    }
  }

  /** Closes every connection; later calls fail with PG_CLOSED, and so does a call in a reconnect pause. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new DOMException('The PostgreSQL storage was closed', 'AbortError'));
    await this.#pool.end();
  }

  // Takes a pooled connection, retrying a failed connect `reconnectAttempts` times with a capped
  // doubling pause. The pauses are the kernel's retry schedule: close() ends one at once.
  async #connect(what: string): Promise<pg.PoolClient> {
    const { reconnectAttempts, reconnectDelayMs } = this.options;
    const closed = () => new PostgresStorageError('PG_CLOSED', `The PostgreSQL storage was closed; ${what} did not run`);
    if (this.#closed) throw closed();
    try {
      return await retryWithDelays({
        signal: this.#closing.signal,
        attempt: async () => {
          const client = await this.#pool.connect();
          // Connected while closing: hand it back, or the pool's end() would wait for it forever.
          if (this.#closed) {
            client.release();
            throw closed();
          }
          return client;
        },
        delayBeforeRetry: (error, retry) => {
          if (!isConnectionError(error)) throw toPostgresError(error, what);
          if (retry >= reconnectAttempts) {
            throw new PostgresStorageError(
              'PG_UNAVAILABLE',
              `Could not connect to PostgreSQL for ${what} after ${retry + 1} attempt(s): ${(error as Error).message}. Check TROUPE_DATABASE_URL and that the server is running.`,
              { cause: error },
            );
          }
          return reconnectDelay(reconnectDelayMs, retry);
        },
      });
    } catch (error) {
      if (this.#closed) throw closed();
      throw error;
    }
  }
}
