import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countingStorageFs, FsSessionLog, FsTreeStore, fsStorage, nodeStorageFs } from '../src/index.js';
import { tempRoot } from './helpers.js';

const at = '2026-01-01T00:00:00.000Z';
const event = (n: number) => ({ turnId: `t${n}`, step: 0, type: 'test/a', ignorable: true, at, key: `k${n}`, data: { n } });

describe('round trips: what the stores do without a lock or a re-read', () => {
  it('event lookups on an unchanged log take no lock; an append by another instance is seen at once', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const counting = countingStorageFs();
      const dir = join(root, 'sessions');
      const mine = new FsSessionLog({ dir, fs: counting.fs });
      const theirs = new FsSessionLog({ dir, fs: nodeStorageFs });
      await mine.append('s', [event(1), event(2)]);
      // The first lookup after creating the log takes the lock once (it learns the new file's inode).
      await mine.findLatest('s', { type: 'test/a', key: 'k1' });
      counting.reset();
      for (let round = 0; round < 5; round++) {
        expect((await mine.findLatest('s', { type: 'test/a', key: 'k1' }))?.data).toEqual({ n: 1 });
        expect((await mine.readTyped('s', { types: ['test/a'], limit: 1 })).events.map((e) => e.id)).toEqual(['e2']);
        expect((await mine.read('s')).map((e) => e.id)).toEqual(['e1', 'e2']);
      }
      expect(counting.counts().locks).toBe(0);
      // Another process (here: another instance) appends: the next lookup sees it, under the lock once.
      await theirs.append('s', [event(3)]);
      expect((await mine.findLatest('s', { type: 'test/a', key: 'k3' }))?.id).toBe('e3');
      expect((await mine.read('s')).map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
      expect(counting.counts().locks).toBe(1);
      // Our own append keeps the index in step: no lock for the lookups after it either.
      await mine.append('s', [event(4)]);
      counting.reset();
      expect((await mine.findLatest('s', { type: 'test/a', key: 'k4' }))?.id).toBe('e4');
      expect(counting.counts().locks).toBe(0);
    } finally {
      await cleanup();
    }
  });

  it('a line edited in place (same file, same size) is read as it is now, never as the index remembers it', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const sessions = new FsSessionLog({ dir: join(root, 'sessions'), fs: nodeStorageFs });
      await sessions.append('s', [event(1)]);
      expect((await sessions.findLatest('s', { type: 'test/a', key: 'k1' }))?.id).toBe('e1');
      const path = join(root, 'sessions', 's', 'events.jsonl');
      await writeFile(path, (await readFile(path, 'utf8')).replace('"test/a"', '"test/b"'));
      // The lock-free lookup finds its line is not the indexed event; the locked path rebuilds the index.
      expect(await sessions.findLatest('s', { type: 'test/a', key: 'k1' })).toBeUndefined();
      expect((await sessions.findLatest('s', { type: 'test/b', key: 'k1' }))?.id).toBe('e1');
    } finally {
      await cleanup();
    }
  });

  it('currentRevision checks stats only (no lock, no file read) and absorbs a player edit as a read would', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const counting = countingStorageFs(nodeStorageFs, '.md');
      const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: counting.fs });
      await trees.create('s', { 'outline.md': 'o', 'history.md': '' });
      await trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'h' } });
      expect((await trees.read('s')).revision).toBe(2);
      counting.reset();
      expect(await trees.currentRevision('s')).toBe(2);
      expect(counting.counts()).toMatchObject({ locks: 0, bytesRead: 0, fsync: 0, fsyncDir: 0 });
      await writeFile(join(root, 'story-workspaces', 's', 'outline.md'), 'player edit');
      expect(await trees.currentRevision('s')).toBe(3);
      expect(await trees.read('s')).toMatchObject({ revision: 3, files: { 'outline.md': 'player edit' } });
      // A second store over the same folder (another process) sees the same revision.
      expect(await fsStorage({ root }).trees.currentRevision('s')).toBe(3);
    } finally {
      await cleanup();
    }
  });

  it('a read after a settlement writes nothing (the hashes it computes are kept in memory)', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const counting = countingStorageFs();
      const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: counting.fs });
      await trees.create('s', { 'history.md': '' });
      await trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'h' } });
      // The settlement's own tail (its record's folder sync, the intent's removal, the lock's
      // release) runs after it answered: counted as the settlement's, not the read's.
      await trees.idle();
      counting.reset();
      await trees.read('s');
      expect(counting.counts()).toMatchObject({ fsync: 0, fsyncDir: 0, locks: 0 });
      // Unchanged since this process settled it: read without the lock, so nothing is renamed either.
      expect(counting.counts().byOperation.rename).toBeUndefined();
      // The hash is used by the next change: touching history.md afterwards is still no edit.
      await trees.settle('s', { marker: 'turn-2:0', appends: { 'history.md': 'i' } });
      await trees.read('s');
      const path = join(root, 'story-workspaces', 's', 'history.md');
      await writeFile(path, await readFile(path, 'utf8'));
      expect((await trees.read('s')).revision).toBe(3);
    } finally {
      await cleanup();
    }
  });
});
