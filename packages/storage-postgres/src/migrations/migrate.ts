import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/database.js';
import { quoteSchema } from '../db/options.js';
import { isConnectionError, toPostgresError } from '../db/pg-error-map.js';
import { PostgresStorageError } from '../errors.js';
import { MIGRATIONS, type Migration, SCHEMA_VERSION } from './migrations.js';

/** Options of {@link runMigrations}. */
export interface MigrateOptions {
  /** Stop after this version (default: the newest this package ships), for staged upgrades. */
  readonly toVersion?: number;
}

/** What {@link runMigrations} did. */
export interface MigrateResult {
  /** Versions applied by this call (empty when the schema was current). */
  readonly applied: readonly number[];
  /** The schema version now. */
  readonly version: number;
}

// One key for every process migrating any schema of this database: migrations are rare, and one
// key means two processes can never interleave (a schema's CREATE SCHEMA included).
const MIGRATION_LOCK_KEY = 'troupe:storage-postgres:migrate';

/**
 * Applies the pending migrations in one transaction under a transaction-scoped advisory lock:
 * safe to run twice and from several processes at once (the second waits, then finds nothing
 * to do). Refuses a database migrated by a newer package or whose applied migration text differs.
 * @param db - the storage's database
 * @param options - `toVersion` stops early
 * @throws {PostgresStorageError} PG_INVALID_OPTIONS, PG_MIGRATION_FAILED, PG_SCHEMA_TOO_NEW, PG_UNAVAILABLE, PG_CONNECTION_LOST
 */
export async function runMigrations(db: Database, options: MigrateOptions = {}): Promise<MigrateResult> {
  const target = options.toVersion ?? SCHEMA_VERSION;
  if (!Number.isInteger(target) || target < 1 || target > SCHEMA_VERSION) {
    throw new PostgresStorageError('PG_INVALID_OPTIONS', `migrate(): toVersion must be an integer from 1 to ${SCHEMA_VERSION}`);
  }
  try {
    return await db.withRawClient('migrate()', async (client) => {
      await client.query('BEGIN');
      try {
        const result = await migrateLocked(client, db.options.schema, target);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (!isConnectionError(error)) await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  } catch (error) {
    if (PostgresStorageError.isInstance(error) && error.code !== 'PG_QUERY_FAILED') throw error;
    const cause = toPostgresError(error, 'migrate()');
    if (cause.code !== 'PG_QUERY_FAILED') throw cause;
    throw new PostgresStorageError('PG_MIGRATION_FAILED', `Migrating the Troupe schema failed, nothing was changed: ${cause.message}`, { cause: error, details: cause.details });
  }
}

async function migrateLocked(client: Queryable, schema: string, target: number): Promise<MigrateResult> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK_KEY]);
  // Fixed text plus an allowlisted, quoted schema name: DDL takes no parameters.
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(schema)}`);
  await client.query(
    'CREATE TABLE IF NOT EXISTS troupe_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const rows = await client.query('SELECT version, checksum FROM troupe_schema_migrations ORDER BY version');
  const applied = new Map(rows.map((row) => [Number(row.version), String(row.checksum)]));
  const newest = Math.max(0, ...applied.keys());
  if (newest > SCHEMA_VERSION) {
    throw new PostgresStorageError(
      'PG_SCHEMA_TOO_NEW',
      `The Troupe schema in "${schema}" is at version ${newest}, newer than this @troupe/storage-postgres knows (${SCHEMA_VERSION}); upgrade the package.`,
    );
  }
  const done: number[] = [];
  for (const migration of MIGRATIONS) {
    if (migration.version > target) break;
    const recorded = applied.get(migration.version);
    if (recorded !== undefined) {
      if (recorded !== checksumOf(migration)) {
        throw new PostgresStorageError(
          'PG_MIGRATION_FAILED',
          `Migration ${migration.version} ("${migration.name}") applied to "${schema}" differs from the one shipped with this package; the schema was changed by hand or by another build.`,
        );
      }
      continue;
    }
    await client.query(migration.sql);
    await client.query('INSERT INTO troupe_schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, checksumOf(migration)]);
    done.push(migration.version);
  }
  return { applied: done, version: Math.max(newest, ...done) };
}

/**
 * Checks that the schema is at the version this package needs, without changing anything.
 * @throws {PostgresStorageError} PG_SCHEMA_OUTDATED / PG_SCHEMA_TOO_NEW
 */
export async function checkSchema(client: Queryable, schema: string): Promise<void> {
  const rows = await client.query("SELECT to_regclass('troupe_schema_migrations') IS NOT NULL AS present");
  const present = rows[0]?.present === true;
  const version = present ? Number((await client.query('SELECT coalesce(max(version), 0) AS version FROM troupe_schema_migrations'))[0]?.version ?? 0) : 0;
  if (version < SCHEMA_VERSION) {
    throw new PostgresStorageError(
      'PG_SCHEMA_OUTDATED',
      `The Troupe schema in "${schema}" is at version ${version}, this package needs ${SCHEMA_VERSION}: run migrate() (e.g. at deploy) before using the storage.`,
    );
  }
  if (version > SCHEMA_VERSION) {
    throw new PostgresStorageError('PG_SCHEMA_TOO_NEW', `The Troupe schema in "${schema}" is at version ${version}, newer than this package knows (${SCHEMA_VERSION}); upgrade the package.`);
  }
}

function checksumOf(migration: Migration): string {
  return createHash('sha256').update(migration.sql, 'utf8').digest('hex');
}
