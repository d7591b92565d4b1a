import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { asAdmin, describePg, freshStorage, pgUrl } from './helpers.js';
import { childEnv, fixture, runFixture } from './support/children.js';

// Lean by default; STRESS=1 runs the acceptance sizes (8 processes × 50 commits, 20 kills).
const STRESS = process.env.STRESS === '1';
const WORKERS = 8;
const COMMITS = STRESS ? 50 : 5;
const KILLS = STRESS ? 20 : 3;
const FILES = 12;

describePg('several processes on one database', () => {
  it(`${WORKERS} processes × ${COMMITS} commits of one workspace lose no update`, async () => {
    const storage = await freshStorage();
    try {
      await storage.trees.create('shared', { 'log.md': '' });
      // Started together (see the fixture's barrier): processes that start one after another on a
      // busy machine could otherwise each finish before the next begins, and never race.
      const barrier = await mkdtemp(join(tmpdir(), 'troupe-barrier-'));
      const running = Promise.all(
        Array.from({ length: WORKERS }, (_, worker) => runFixture('commit-worker.mjs', [pgUrl, storage.schema, 'shared', String(worker), String(COMMITS), barrier])),
      );
      let failed = false;
      running.catch(() => (failed = true));
      let outputs: string[];
      try {
        while (!failed && (await readdir(barrier)).length < WORKERS) await new Promise((resolve) => setTimeout(resolve, 5));
        await writeFile(join(barrier, 'go'), '');
        outputs = await running;
      } finally {
        // Also when waiting at the barrier failed: no temp folder is left behind.
        await rm(barrier, { recursive: true, force: true });
      }
      const conflicts = outputs.reduce((sum, output) => sum + (JSON.parse(output) as { conflicts: number }).conflicts, 0);
      const { revision, files } = await storage.trees.read('shared');
      expect(revision).toBe(1 + WORKERS * COMMITS);
      const lines = (files['log.md'] ?? '').split('\n').filter(Boolean);
      const expected = Array.from({ length: WORKERS }, (_, worker) => Array.from({ length: COMMITS }, (_, n) => `w${worker}-${n + 1}`)).flat();
      expect(lines.sort()).toEqual(expected.sort());
      for (let worker = 0; worker < WORKERS; worker++) expect(files[`w${worker}.md`]).toBe(String(COMMITS));
      // The workers really raced (otherwise the test proves nothing about lost updates).
      console.info(`cross-process (postgres): ${WORKERS * COMMITS} commits, ${conflicts} conflicts rejected`);
      expect(conflicts).toBeGreaterThan(0);
    } finally {
      await storage.cleanup();
    }
  });

  it('a worker left waiting at the barrier stops when the test gives up (the barrier folder is removed) instead of waiting forever', async () => {
    const storage = await freshStorage();
    const barrier = await mkdtemp(join(tmpdir(), 'troupe-barrier-'));
    try {
      await storage.trees.create('shared', { 'log.md': '' });
      const running = runFixture('commit-worker.mjs', [pgUrl, storage.schema, 'shared', '0', '1', barrier]);
      running.catch(() => undefined);
      while ((await readdir(barrier)).length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      await rm(barrier, { recursive: true, force: true });
      await expect(running).rejects.toThrow(/barrier folder is gone/);
      // It committed nothing.
      expect((await storage.trees.read('shared')).revision).toBe(1);
    } finally {
      await rm(barrier, { recursive: true, force: true });
      await storage.cleanup();
    }
  });

  it(`a writer killed with SIGKILL mid-commit leaves the old or the new revision, never a mix (${KILLS} kills)`, async () => {
    const storage = await freshStorage();
    try {
      const initial = Object.fromEntries(Array.from({ length: FILES }, (_, index) => [`part-${index}.md`, 'generation 0\n']));
      await storage.trees.create('torn', initial);
      let inTransaction = 0;
      for (let kill = 0; kill < KILLS; kill++) {
        const applicationName = `kill-writer-${kill}`;
        const child = spawn(process.execPath, [fixture('kill-writer.mjs'), pgUrl, storage.schema, 'torn', String(FILES), applicationName], { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
        const exited = once(child, 'exit');
        let committed = 0;
        child.stdout.on('data', (chunk: Buffer) => {
          committed += chunk.toString().split('\n').filter(Boolean).length;
        });
        // Kill while its backend is inside a commit's transaction (after a few commits landed).
        for (let polls = 0; ; polls++) {
          const state = await asAdmin((client) => client.query('SELECT state FROM pg_stat_activity WHERE application_name = $1', [applicationName]));
          const busy = state.rows.some((row: { state: string }) => row.state === 'active' || row.state === 'idle in transaction');
          if (committed >= 2 && (busy || polls > 200)) {
            if (busy) inTransaction++;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        child.kill('SIGKILL');
        await exited;
        // The server rolls the dead client's transaction back; wait until its backend is gone.
        await waitFor(async () => (await asAdmin((client) => client.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [applicationName]))).rowCount === 0);
        const { revision, files } = await storage.trees.read('torn');
        const generations = new Set(Object.values(files).map((text) => text.split('\n')[0]));
        expect(Object.keys(files)).toHaveLength(FILES);
        expect([...generations]).toEqual([`generation ${revision - 1}`]);
      }
      // The kills did land inside commits, not only between them.
      expect(inTransaction).toBeGreaterThan(0);
      // And the tree stays writable: no lock was left behind.
      const { revision } = await storage.trees.read('torn');
      await storage.trees.commit('torn', { baseRevision: revision, writes: { 'part-0.md': 'after' } });
    } finally {
      await storage.cleanup();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached in 5 s');
}
