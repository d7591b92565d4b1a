import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

describe('a change of many files', () => {
  it('keeps a bounded number of files open while their syncs overlap, and commits every file', async () => {
    let open = 0;
    let mostOpen = 0;
    // A layer that replaces open and close, so every call goes through it (no synchronous form),
    // on a disk whose syncs are slow (as on a busy or network disk): without a bound every staged
    // file would still be open when the last one is written.
    const tracking: StorageFs = {
      ...nodeStorageFs,
      fsync: async (fd) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        await nodeStorageFs.fsync(fd);
      },
      open: async (path, flags, mode) => {
        const fd = await nodeStorageFs.open(path, flags, mode);
        open++;
        mostOpen = Math.max(mostOpen, open);
        return fd;
      },
      close: async (fd) => {
        await nodeStorageFs.close(fd);
        open--;
      },
    };
    const { trees } = fsStorage({ root, fs: tracking });
    await trees.create('s', { 'a.md': 'base' });
    const writes = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`many/file-${index}.md`, `content ${index}`]));
    await trees.commit('s', { baseRevision: 1, writes });
    const snapshot = await fsStorage({ root }).trees.read('s');
    expect(Object.keys(snapshot.files).filter((path) => path.startsWith('many/'))).toHaveLength(300);
    expect(snapshot.files['many/file-299.md']).toBe('content 299');
    // 64 staged files waiting for their sync, plus the few a commit holds besides (lock, folder, log).
    expect(mostOpen).toBeLessThanOrEqual(64 + 8);
    expect(open).toBe(0);
  });
});
