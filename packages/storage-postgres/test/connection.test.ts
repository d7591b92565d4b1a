import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { expect, it } from 'vitest';
import { postgresStorage } from '../src/index.js';
import { asAdmin, describePg, freshStorage } from './helpers.js';

/** Waits until `sql` (run as admin) returns a row. */
async function waitForRow(sql: string, values: unknown[]): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if ((await asAdmin((client) => client.query(sql, values))).rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no row for ${sql}`);
}

const WAITING_ON_LOCK = "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'";

/** Runs `during` while an admin transaction holds tree `s`'s row lock (so store calls on it wait), then rolls back. */
async function whileTreeLocked<T>(schema: string, during: (admin: pg.Client) => Promise<T>): Promise<T> {
  return asAdmin(async (admin) => {
    await admin.query('BEGIN');
    await admin.query(`SELECT 1 FROM "${schema}".troupe_trees WHERE tree_id = 's' FOR UPDATE`);
    try {
      return await during(admin);
    } finally {
      await admin.query('ROLLBACK');
    }
  });
}

describePg('connections: lost, timed out, unreachable', () => {
  it('a connection terminated mid-commit fails that call with PG_CONNECTION_LOST, writes nothing, and the next call reconnects', async () => {
    const storage = await freshStorage({ applicationName: 'lost-mid-commit', poolSize: 1 });
    try {
      await storage.trees.create('s', { 'a.md': 'A' });
      // Hold the tree row so the commit is in flight, then cut its connection.
      const result = await whileTreeLocked(storage.schema, async (admin) => {
        const commit = storage.trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'lost', 'b.md': 'lost' } }).catch((error: unknown) => error);
        await waitForRow(WAITING_ON_LOCK, ['lost-mid-commit']);
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'lost-mid-commit'");
        return commit;
      });
      expect(result).toMatchObject({ code: 'STORAGE_IO', details: { reason: 'PG_CONNECTION_LOST' } });
      expect((result as Error).message).toMatch(/connection to PostgreSQL was lost during commit "s".*next call reconnects/);
      expect(await storage.trees.read('s')).toEqual({ treeId: 's', revision: 1, files: { 'a.md': 'A' } });
      const next = await storage.trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'saved' } });
      expect(next).toMatchObject({ revision: 2, files: { 'a.md': 'saved' } });
    } finally {
      await storage.cleanup();
    }
  });

  it('an idle pooled connection terminated by the server is replaced on the next call', async () => {
    const storage = await freshStorage({ applicationName: 'idle-terminated', poolSize: 1 });
    try {
      await storage.sessions.append('s', [{ turnId: 't', step: 0, type: 'test/a', ignorable: true, at: new Date().toISOString(), data: {} }]);
      await asAdmin((admin) => admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'idle-terminated'"));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await storage.sessions.read('s')).map((event) => event.id)).toEqual(['e1']);
    } finally {
      await storage.cleanup();
    }
  });

  it('a statement past statementTimeoutMs fails with PG_STATEMENT_TIMEOUT and writes nothing', async () => {
    const storage = await freshStorage({ applicationName: 'slow-commit', statementTimeoutMs: 300 });
    try {
      await storage.trees.create('s', { 'a.md': 'A' });
      const error = await whileTreeLocked(storage.schema, () => storage.trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'late' } }).catch((caught: unknown) => caught));
      expect(error).toMatchObject({ code: 'STORAGE_IO', details: { reason: 'PG_STATEMENT_TIMEOUT' } });
      expect((await storage.trees.read('s')).files).toEqual({ 'a.md': 'A' });
    } finally {
      await storage.cleanup();
    }
  });

  it('an unreachable server fails with PG_UNAVAILABLE after the configured reconnect attempts', async () => {
    const nowhere = await mkdtemp(join(tmpdir(), 'troupe-no-pg-'));
    const storage = postgresStorage({ connectionString: `postgresql://troupe@localhost/postgres?host=${encodeURIComponent(nowhere)}`, reconnectAttempts: 2, reconnectDelayMs: 10 });
    try {
      const error = await storage.trees.list().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'STORAGE_IO', details: { reason: 'PG_UNAVAILABLE' } });
      expect((error as Error).message).toMatch(/after 3 attempt\(s\)/);
    } finally {
      await storage.close();
      await rm(nowhere, { recursive: true, force: true });
    }
  });

  it('close() during a reconnect pause ends the waiting call at once with PG_CLOSED (the pause listens to close)', async () => {
    const nowhere = await mkdtemp(join(tmpdir(), 'troupe-no-pg-'));
    // A ten-minute pause before the retry: only close() can end this call within the test's timeout.
    const storage = postgresStorage({ connectionString: `postgresql://troupe@localhost/postgres?host=${encodeURIComponent(nowhere)}`, reconnectAttempts: 5, reconnectDelayMs: 600_000 });
    try {
      const call = storage.trees.list().catch((caught: unknown) => caught);
      // Let the first attempt fail (a missing socket fails at once) so the call sits in its pause.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await storage.close();
      const error = await call;
      expect(error).toMatchObject({ code: 'STORAGE_IO', details: { reason: 'PG_CLOSED' } });
      expect((error as Error).message).toMatch(/storage was closed/);
    } finally {
      await storage.close();
      await rm(nowhere, { recursive: true, force: true });
    }
  });
});
