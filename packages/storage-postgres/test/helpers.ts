import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, inject } from 'vitest';
import { type PostgresStorage, type PostgresStorageOptions, postgresStorage } from '../src/index.js';

/** The suite server's connection string ('' when TROUPE_SKIP_PG=1). */
export const pgUrl: string = inject('pgUrl');

/**
 * `describe`, skipped (the reason was printed by the global setup) only when TROUPE_SKIP_PG=1.
 * @param name - the block's name
 * @param body - the tests
 */
export function describePg(name: string, body: () => void): void {
  describe.skipIf(pgUrl === '')(name, body);
}

/** A fresh schema name, unique per call. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/**
 * Runs statements as the suite's superuser on a short-lived connection.
 * @param work - what to run
 */
export async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  await asAdmin((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** A migrated storage in its own fresh schema; `cleanup` closes it and drops the schema. */
export async function freshStorage(options: PostgresStorageOptions = {}): Promise<PostgresStorage & { cleanup: () => Promise<void> }> {
  const schema = options.schema ?? freshSchema();
  const storage = postgresStorage({ connectionString: pgUrl, ...options, schema });
  await storage.migrate();
  return {
    ...storage,
    cleanup: async () => {
      await storage.close();
      await dropSchema(schema);
    },
  };
}

/** The kernel's contract helper: the `code` a promise rejects with. */
export { codeOf } from '@troupe/kernel/contracts';
