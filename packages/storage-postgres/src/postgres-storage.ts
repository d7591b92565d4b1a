import { Database } from './db/database.js';
import { type PostgresStorageOptions, resolveOptions } from './db/options.js';
import { PgLiveUpdates } from './live/pg-live-updates.js';
import { type MigrateOptions, type MigrateResult, runMigrations } from './migrations/migrate.js';
import { PgSessionLog } from './session/pg-session-log.js';
import { PgTreeStore } from './tree/pg-tree-store.js';
import { PgTurnLocks } from './turn/pg-turn-locks.js';

/** The stores sharing one connection pool, plus schema and lifecycle control. */
export interface PostgresStorage {
  /** Story workspaces (`TreeStore`). */
  readonly trees: PgTreeStore;
  /** Session logs (`SessionLog`). */
  readonly sessions: PgSessionLog;
  /**
   * Live updates across processes (LISTEN/NOTIFY): `watchSession(id, listener)` for new events,
   * `watchTree(id, listener)` for new revisions, from this or any other process.
   */
  readonly live: PgLiveUpdates;
  /** The schema in use. */
  readonly schema: string;
  /**
   * Creates or upgrades the tables (versioned migrations shipped with the package). Run it
   * explicitly, e.g. at deploy or app start; safe to run twice and from several processes at once.
   * @param options - `toVersion` stops after that version (staged upgrades)
   */
  migrate(options?: MigrateOptions): Promise<MigrateResult>;
  /** Closes the pool; later calls fail with `STORAGE_IO` (cause `PG_CLOSED`). */
  close(): Promise<void>;
}

/**
 * Opens PostgreSQL storage: a `TreeStore` and a `SessionLog` over one pool. Connects lazily (on
 * the first call); the first store call checks the schema version and fails with
 * `PG_SCHEMA_OUTDATED` until `migrate()` has run.
 * @param options - connection string (default `$TROUPE_DATABASE_URL`), schema, pool size, timeouts, reconnect
 * @throws {PostgresStorageError} PG_INVALID_OPTIONS
 */
export function postgresStorage(options: PostgresStorageOptions = {}): PostgresStorage {
  const db = new Database(resolveOptions(options));
  const turnLocks = new PgTurnLocks(db.options);
  const live = new PgLiveUpdates(db.options);
  return {
    live,
    trees: new PgTreeStore(db),
    sessions: new PgSessionLog(db, turnLocks),
    schema: db.options.schema,
    migrate: (migrateOptions) => runMigrations(db, migrateOptions),
    close: async () => {
      await live.close();
      await turnLocks.close();
      await db.close();
    },
  };
}
