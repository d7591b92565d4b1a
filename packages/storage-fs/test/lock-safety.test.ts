import { spawnSync } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../src/fs/file-lock.js';
import { processStartTime } from '../src/fs/lock-owner.js';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const meta = () => join(root, 'story-workspaces', 's', '.troupe');
const lockFile = () => join(meta(), 'lock');
const THIEF = JSON.stringify({ pid: process.pid, host: 'another-host', at: 0, nonce: 'thief' });

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/**
 * An fs layer whose holder loses its lock mid-operation: right after the lock file is published,
 * the next file opened (reading the intent or the log, well before any commit point) first
 * replaces the lock with another process's.
 */
function stealingFs(lockPath: string): StorageFs {
  let armed = false;
  return {
    ...nodeStorageFs,
    link: async (from, to) => {
      await nodeStorageFs.link(from, to);
      if (to === lockPath) armed = true;
    },
    open: async (path, flags, mode) => {
      if (armed && path !== lockPath) {
        armed = false;
        await unlink(lockPath);
        await writeFile(lockPath, THIEF);
      }
      return nodeStorageFs.open(path, flags, mode);
    },
    // The first file the holder reads, on the calling thread: stolen there just the same.
    readNow: (path, start, end) => {
      if (armed && path !== lockPath) {
        armed = false;
        unlinkSync(lockPath);
        writeFileSync(lockPath, THIEF);
      }
      return nodeStorageFs.readNow?.(path, start, end);
    },
  };
}

async function leftovers(): Promise<string[]> {
  return (await readdir(meta())).filter((name) => name.startsWith('.troupe-tmp-') || name === 'intent.json');
}

describe('lock safety', () => {
  it('a commit whose lock is stolen before the commit point aborts with STORAGE_IO and writes nothing', async () => {
    await fsStorage({ root }).trees.create('s', { 'a.md': 'A', 'manifest.json': '{"name":"x"}' });
    const { trees } = fsStorage({ root, fs: stealingFs(lockFile()) });
    const error = await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B', 'b.md': 'new' } }).catch((caught: unknown) => caught);
    expect((error as { code?: string }).code).toBe('STORAGE_IO');
    expect(String((error as Error).message)).toMatch(/Lost the lock/);
    expect(await readFile(lockFile(), 'utf8')).toBe(THIEF); // the other holder's lock is left alone
    expect(await leftovers()).toEqual([]);
    await rm(lockFile()); // the other process finishes
    const snapshot = await fsStorage({ root }).trees.read('s');
    expect(snapshot.revision).toBe(1);
    expect(snapshot.files['a.md']).toBe('A');
    expect(snapshot.files['b.md']).toBeUndefined();
  });

  it('a settlement whose lock is stolen before the commit point appends nothing and records no marker', async () => {
    await fsStorage({ root }).trees.create('s', { 'history.md': '# H\n' });
    const { trees } = fsStorage({ root, fs: stealingFs(lockFile()) });
    const error = await trees.settle('s', { marker: 't1', appends: { 'history.md': 'turn one' } }).catch((caught: unknown) => caught);
    expect((error as { code?: string }).code).toBe('STORAGE_IO');
    expect(await leftovers()).toEqual([]);
    await rm(lockFile());
    const store = fsStorage({ root }).trees;
    expect((await store.read('s')).files['history.md']).toBe('# H\n');
    expect(await store.settle('s', { marker: 't1', appends: { 'history.md': 'turn one' } })).toEqual({ applied: true, revision: 2 });
  });

  it('a session append whose lock is stolen appends nothing', async () => {
    const { sessions } = fsStorage({ root });
    await sessions.append('s', [newEvent('test/a')]);
    const sessionLock = join(root, 'sessions', 's', 'lock');
    const before = await readFile(join(root, 'sessions', 's', 'events.jsonl'));
    const code = await fsStorage({ root, fs: stealingFs(sessionLock) })
      .sessions.append('s', [newEvent('test/b')])
      .catch((error: { code?: string }) => error.code);
    expect(code).toBe('STORAGE_IO');
    expect(await readFile(sessionLock, 'utf8')).toBe(THIEF);
    expect(await readFile(join(root, 'sessions', 's', 'events.jsonl'))).toEqual(before);
  });

  it('two waiters breaking the same stale lock: exactly one holds it at a time', async () => {
    const dir = join(root, 'lockdir');
    await mkdir(dir);
    const lockPath = join(dir, 'lock');
    await writeFile(lockPath, JSON.stringify({ pid: deadPid(), host: hostname(), at: 0, nonce: 'stale' }));
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let markAfterMove!: () => void;
    const afterMove = new Promise<void>((resolve) => (markAfterMove = resolve));
    let paused = false;
    let moved = false;
    // Waiter A reads the stale lock, then stalls just before moving it aside, while B breaks it
    // and takes a fresh lock. A then moves B's lock: it must notice and put it back.
    const slowA: StorageFs = {
      ...nodeStorageFs,
      rename: async (from, to) => {
        if (from === lockPath && !paused) {
          paused = true;
          await gate;
          await nodeStorageFs.rename(from, to);
          moved = true;
          return;
        }
        return nodeStorageFs.rename(from, to);
      },
      link: async (from, to) => {
        try {
          return await nodeStorageFs.link(from, to);
        } finally {
          if (moved) markAfterMove();
        }
      },
    };
    let holders = 0;
    let maxHolders = 0;
    const order: string[] = [];
    const enter = (name: string) => {
      holders += 1;
      maxHolders = Math.max(maxHolders, holders);
      order.push(name);
    };
    const options = { onMissing: () => new Error('missing'), timeoutMs: 10_000 };
    const a = withFileLock(slowA, lockPath, options, async () => {
      enter('A');
      holders -= 1;
    });
    while (!paused) await new Promise((resolve) => setTimeout(resolve, 1));
    await withFileLock(nodeStorageFs, lockPath, options, async (lock) => {
      enter('B');
      openGate();
      await afterMove;
      // Give A every chance to (wrongly) enter now.
      await new Promise((resolve) => setTimeout(resolve, 30));
      await lock.assertHeld('the end of the test'); // B's lock survived A's move
      holders -= 1;
    });
    await a;
    expect(maxHolders).toBe(1);
    expect(order).toEqual(['B', 'A']);
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks a lock of this process whose nonce it does not hold (an abandoned attempt) at once', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 2_000 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), JSON.stringify({ pid: process.pid, host: hostname(), at: 0, nonce: 'abandoned' }));
    expect((await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } })).revision).toBe(2);
  });

  it.runIf(process.platform === 'linux')('treats a live pid that started at another time as dead (pid reuse), and waits on the real owner', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 300 });
    await trees.create('s', { 'a.md': 'A' });
    const live = process.ppid;
    const start = processStartTime(live);
    expect(start).toMatch(/^\d+$/);
    await writeFile(lockFile(), JSON.stringify({ pid: live, host: hostname(), at: 0, nonce: 'n', start }));
    expect(await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } }).catch((error: { code?: string }) => error.code)).toBe('STORAGE_IO');
    await writeFile(lockFile(), JSON.stringify({ pid: live, host: hostname(), at: 0, nonce: 'n', start: `${start}1` }));
    expect((await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } })).revision).toBe(2);
  });
});
