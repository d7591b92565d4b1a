import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

/**
 * A layer whose every sync takes `delayMs` (as a disk's flush does) and that counts sync rounds:
 * a round starts when a sync begins while no other one is running, and is over when none runs
 * any more. Syncs a change issues together overlap and count once; each sync it must wait for
 * before the next step counts again. `over()` when a call answers is the number of flushes its
 * caller waited for one after another.
 */
function roundCountingFs(delayMs = 15): { fs: StorageFs; rounds: () => number; over: () => number; reset: () => void } {
  let running = 0;
  let rounds = 0;
  let over = 0;
  const timed =
    <A extends unknown[]>(call: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      if (running++ === 0) rounds++;
      try {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await call(...args);
      } finally {
        if (--running === 0) over++;
      }
    };
  const fs: StorageFs = { ...nodeStorageFs, fsync: timed(nodeStorageFs.fsync), fsyncDir: timed(nodeStorageFs.fsyncDir) };
  return {
    fs,
    rounds: () => rounds,
    over: () => over,
    reset: () => {
      rounds = 0;
      over = 0;
    },
  };
}

describe('syncs a change waits for one after another', () => {
  it('a settlement (appends + the manifest stamp) answers after 3 rounds (intent, its folder, the data with the record copy); the record folder follows', async () => {
    const counting = roundCountingFs();
    const { trees } = fsStorage({ root, fs: counting.fs });
    await trees.create('s', { 'manifest.json': '{"name":"Fog"}', 'history.md': '# H\n' });
    // The first settlement also creates the marker file (one folder sync more, once per tree).
    await trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'One.' } });
    await trees.idle();
    counting.reset();
    expect(await trees.settle('s', { marker: 'turn-2:0', appends: { 'history.md': 'Two.' } })).toEqual({ applied: true, revision: 3 });
    // Durable by its intent from here on; the record's folder sync and the intent's removal follow.
    expect(counting.over()).toBe(3);
    expect(existsSync(join(root, 'story-workspaces', 's', '.troupe', 'intent.json'))).toBe(true);
    await trees.idle();
    expect(counting.rounds()).toBe(4);
    expect(existsSync(join(root, 'story-workspaces', 's', '.troupe', 'intent.json'))).toBe(false);
    const snapshot = await fsStorage({ root }).trees.read('s');
    expect(snapshot.files['history.md']).toBe('# H\n<!-- troupe:settle turn-1:0 -->\nOne.\n<!-- troupe:settle turn-2:0 -->\nTwo.\n');
    expect(JSON.parse(snapshot.files['manifest.json'] ?? '')).toEqual({ name: 'Fog', revision: 3 });
  });

  it('a commit of small files answers after 3 rounds as well; a big file is still staged before the intent', async () => {
    const counting = roundCountingFs();
    const { trees } = fsStorage({ root, fs: counting.fs });
    await trees.create('s', { 'a.md': 'a', 'b.md': 'b', 'c/d.md': 'd' });
    await trees.idle();
    counting.reset();
    // (A file in a folder that does not exist yet adds the sync of its new folder.)
    await trees.commit('s', { baseRevision: 1, writes: { 'a.md': 'new a', 'c/d.md': 'new d', 'b.md': null } });
    expect(counting.over()).toBe(3);
    // Another store over the folder (another process) reads the change right away: it finds the
    // intent still there and waits for the lock instead of reading around it.
    expect(await fsStorage({ root }).trees.read('s')).toMatchObject({ revision: 2, files: { 'a.md': 'new a', 'c/d.md': 'new d' } });
    await trees.idle();
    const big = 'x'.repeat(2 * 1024 * 1024);
    counting.reset();
    await trees.commit('s', { baseRevision: 2, writes: { 'big.md': big, 'a.md': 'newer a' } });
    // Staging the big file and its folder's entry comes first: one round more.
    expect(counting.over()).toBe(4);
    expect((await fsStorage({ root }).trees.read('s')).files).toEqual({ 'a.md': 'newer a', 'c/d.md': 'new d', 'big.md': big });
  });
});
