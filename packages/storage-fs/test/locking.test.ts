import { spawnSync } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

const lockFile = () => join(root, 'story-workspaces', 's', '.troupe', 'lock');

describe('cross-process lock', () => {
  it('breaks a lock left by a dead process on this host at once', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 2_000 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), JSON.stringify({ pid: deadPid(), host: hostname(), at: Date.now() }));
    expect((await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } })).revision).toBe(2);
    // The commit answers once durable; its lock goes right after (what `idle` waits for).
    await trees.idle();
    expect(await readdir(join(root, 'story-workspaces', 's', '.troupe'))).not.toContain('lock');
  });

  it('waits for a live holder and gives up with STORAGE_IO after the timeout, writing nothing', async () => {
    const { trees } = fsStorage({ root, lockTimeoutMs: 300 });
    await trees.create('s', { 'a.md': 'A' });
    await writeFile(lockFile(), JSON.stringify({ pid: process.pid, host: 'another-host', at: Date.now() }));
    expect(await codeOf(trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'B' } }))).toBe('STORAGE_IO');
    await rm(lockFile()); // the other host releases

    expect(await trees.read('s')).toEqual({ treeId: 's', revision: 1, files: { 'a.md': 'A' } });
  });

  it('gives concurrent session appends unique, gap-free ids and intact lines', async () => {
    const { sessions } = fsStorage({ root });
    const other = fsStorage({ root }).sessions; // a second instance: only the file lock serialises them
    await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? sessions : other).append('s', [newEvent('test/a', { index }), newEvent('test/b')])));
    const events = await fsStorage({ root }).sessions.read('s');
    expect(events.map((event) => event.id)).toEqual(Array.from({ length: 40 }, (_, index) => `e${index + 1}`));
  });
});
