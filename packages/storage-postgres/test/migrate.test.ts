import { appendSettleBlock } from '@troupe/kernel/storage';
import { afterEach, expect, it } from 'vitest';
import { PostgresStorageError, postgresStorage, SCHEMA_VERSION } from '../src/index.js';
import { asAdmin, describePg, dropSchema, freshSchema, pgUrl } from './helpers.js';
import { runFixture } from './support/children.js';

const schemas: string[] = [];
const schema = () => {
  const name = freshSchema();
  schemas.push(name);
  return name;
};
afterEach(async () => {
  for (const name of schemas.splice(0)) await dropSchema(name);
});

describePg('migrate()', () => {
  it('creates the schema once; running it again changes nothing', async () => {
    const storage = postgresStorage({ connectionString: pgUrl, schema: schema() });
    try {
      expect(await storage.migrate()).toEqual({ applied: [1, 2, 3], version: SCHEMA_VERSION });
      await storage.trees.create('story', { 'a.md': 'A' });
      expect(await storage.migrate()).toEqual({ applied: [], version: SCHEMA_VERSION });
      expect((await storage.trees.read('story')).files).toEqual({ 'a.md': 'A' });
    } finally {
      await storage.close();
    }
  });

  it('is safe from several processes at once: exactly one applies, the others find it done', async () => {
    const name = schema();
    const results = await Promise.all(Array.from({ length: 4 }, () => runFixture('migrate.mjs', [pgUrl, name])));
    const applied = results.map((output) => (JSON.parse(output) as { applied: number[] }).applied);
    expect(applied.filter((versions) => versions.length === SCHEMA_VERSION)).toHaveLength(1);
    expect(applied.filter((versions) => versions.length === 0)).toHaveLength(3);
    const rows = await asAdmin((client) => client.query(`SELECT version FROM "${name}".troupe_schema_migrations ORDER BY version`));
    expect(rows.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
  });

  it('upgrades a version-1 database in place: files and settlements keep their exact bytes', async () => {
    const storage = postgresStorage({ connectionString: pgUrl, schema: schema() });
    try {
      expect(await storage.migrate({ toVersion: 1 })).toEqual({ applied: [1], version: 1 });
      // Version-1 rows, as an older package wrote them (a file without a final newline).
      await asAdmin((client) =>
        client.query(
          `INSERT INTO "${storage.schema}".troupe_trees (tree_id, revision) VALUES ('old', 3);
           INSERT INTO "${storage.schema}".troupe_tree_files (tree_id, path, content, revision) VALUES ('old', 'history.md', convert_to('line', 'UTF8'), 3), ('old', 'notes.md', convert_to('ok' || chr(10), 'UTF8'), 3);`,
        ),
      );
      expect(await storage.migrate()).toEqual({ applied: [2, 3], version: SCHEMA_VERSION });
      await storage.trees.settle('old', { marker: 'turn-1:0', appends: { 'history.md': 'a', 'notes.md': 'b' } });
      expect((await storage.trees.read('old')).files).toEqual({
        'history.md': appendSettleBlock('line', 'turn-1:0', 'a'),
        'notes.md': appendSettleBlock('ok\n', 'turn-1:0', 'b'),
      });
      expect(await storage.migrate({ toVersion: 99 }).catch((error: PostgresStorageError) => error.code)).toBe('PG_INVALID_OPTIONS');
    } finally {
      await storage.close();
    }
  });

  it('refuses store calls on a schema nobody migrated, naming migrate()', async () => {
    const storage = postgresStorage({ connectionString: pgUrl, schema: schema() });
    try {
      const error = await storage.trees.list().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'STORAGE_IO', details: { reason: 'PG_SCHEMA_OUTDATED' } });
      expect((error as Error).message).toContain('migrate()');
      await storage.migrate();
      expect(await storage.trees.list()).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it('refuses a database changed by hand or migrated by a newer package', async () => {
    const name = schema();
    const storage = postgresStorage({ connectionString: pgUrl, schema: name });
    try {
      await storage.migrate();
      await asAdmin((client) => client.query(`UPDATE "${name}".troupe_schema_migrations SET checksum = 'edited'`));
      expect(await storage.migrate().catch((error: unknown) => (error as PostgresStorageError).code)).toBe('PG_MIGRATION_FAILED');
      await asAdmin((client) => client.query(`INSERT INTO "${name}".troupe_schema_migrations (version, name, checksum) VALUES (99, 'future', 'x')`));
      const error = await storage.migrate().catch((caught: unknown) => caught);
      expect(PostgresStorageError.isInstance(error)).toBe(true);
      expect((error as PostgresStorageError).code).toBe('PG_SCHEMA_TOO_NEW');
    } finally {
      await storage.close();
    }
  });

  it('rejects invalid options with PG_INVALID_OPTIONS listing each issue', () => {
    const attempt = (options: object) => {
      try {
        postgresStorage({ connectionString: pgUrl, ...options });
        return undefined;
      } catch (error) {
        return error as PostgresStorageError;
      }
    };
    expect(attempt({ schema: 'Robert"); DROP TABLE x;--' })).toMatchObject({ code: 'PG_INVALID_OPTIONS' });
    const many = attempt({ poolSize: 0, statementTimeoutMs: -1, extra: true });
    expect(many?.code).toBe('PG_INVALID_OPTIONS');
    expect(many?.message).toMatch(/poolSize.*statementTimeoutMs/s);
    expect(many?.message).toContain('extra');
    expect(() => postgresStorage({ connectionString: '' })).toThrow(/TROUPE_DATABASE_URL/);
  });
});
