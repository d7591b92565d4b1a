import { spawn } from 'node:child_process';
import { lstat, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, withFileLock } from '../src/index.js';
import { nodeStorageFs } from '../src/index.js';
import { childEnv, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const lockFile = () => join(root, 'story-workspaces', 's', '.troupe', 'lock');
/** A lock as another host's Troupe writes it (the pid means nothing on this host). */
const foreignLock = (leaseMs?: number) => JSON.stringify({ pid: 1, host: 'container-before-restart', at: Date.now(), nonce: 'n', ...(leaseMs ? { leaseMs } : {}) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('lock leases', () => {
  it('breaks a lock written under another hostname once its lease has expired', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 2_000 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), foreignLock());
    const lastRenewal = new Date(Date.now() - 60_000); // the old container died a minute ago
    await utimes(lockFile(), lastRenewal, lastRenewal);
    expect((await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } })).revision).toBe(2);
    expect((await trees.read('s')).files['a.md']).toBe('B');
  });

  it('a lock from another host without a lease field gets the default lease, judged by its mtime', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 2_000 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), JSON.stringify({ pid: 1, host: 'old-host', at: 0 }));
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lockFile(), old, old);
    expect((await trees.read('s')).revision).toBe(1);
  });

  it('never breaks a foreign lock whose owner keeps renewing it, and the error names the lock file and what to do', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 600 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), foreignLock(200));
    // The owner on the other host is alive: it renews well within its 200 ms lease.
    const renewing = setInterval(() => {
      const now = new Date();
      void utimes(lockFile(), now, now).catch(() => undefined);
    }, 40);
    try {
      const error = (await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } }).catch((caught: unknown) => caught)) as { code?: string; message: string };
      expect(error.code).toBe('STORAGE_IO');
      expect(error.message).toContain(lockFile());
      expect(error.message).toContain('container-before-restart');
      expect(error.message).toMatch(/delete that lock file/);
    } finally {
      clearInterval(renewing);
    }
    expect(await readFile(lockFile(), 'utf8')).toContain('container-before-restart');
    expect((await trees.read('s')).files['a.md']).toBe('A');
  });

  it('a holder renews its lease while it works, so a long critical section is not taken for dead', async () => {
    const dir = join(root, 'lockdir');
    await nodeStorageFs.mkdir(dir);
    const lockPath = join(dir, 'lock');
    const options = { onMissing: () => new Error('missing'), leaseMs: 150 };
    const before = Date.now();
    await withFileLock(nodeStorageFs, lockPath, options, async () => {
      await sleep(600); // four leases
      const renewed = (await lstat(lockPath)).mtimeMs;
      expect(renewed).toBeGreaterThan(before + 300);
      expect(JSON.parse(await readFile(lockPath, 'utf8')).leaseMs).toBe(150);
    });
  });

  it('a live owner on this host is never broken, even when its lease lapsed (a blocked event loop)', async () => {
    const dir = join(root, 'lockdir');
    await nodeStorageFs.mkdir(dir);
    const lockPath = join(dir, 'lock');
    // A child takes the lock with a 100 ms lease, then blocks its event loop (no renewals) for 2 s.
    const script = `
      const { withFileLock, nodeStorageFs } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
      await withFileLock(nodeStorageFs, ${JSON.stringify(lockPath)}, { onMissing: () => new Error('missing'), leaseMs: 100 }, async () => {
        process.stdout.write('held\\n');
        const end = Date.now() + 2000;
        while (Date.now() < end) {}
      });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: childEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve()));
    const code = await withFileLock(nodeStorageFs, lockPath, { onMissing: () => new Error('missing'), timeoutMs: 500 }, async () => 'entered').catch(
      (error: { code?: string }) => error.code,
    );
    expect(code).toBe('STORAGE_IO');
    await exited;
  });
});
