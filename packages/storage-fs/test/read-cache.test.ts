import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CountingStorageFs, countingStorageFs, type EntryStat, FsTreeStore, nodeStorageFs, type StorageFs } from '../src/index.js';
import { FINE_RACY_WINDOW_MS } from '../src/tree/racy-stat.js';
import { MAX_TREES_WITH_CONTENTS } from '../src/tree/tree-contents-cache.js';
import { tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

/** Long enough for every file written before it to be out of the racy window (nanosecond timestamps). */
const pastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, FINE_RACY_WINDOW_MS + 30));

/** Node's fs counted, with the caller files it opened (the store's private files left out). */
function openRecorder(): { fs: StorageFs; opened: () => string[]; reset: () => void; counts: CountingStorageFs['counts'] } {
  const counting = countingStorageFs();
  const opened = () => counting.counts().opened.filter((path) => !path.includes('/.troupe/')).map((path) => path.slice(root.length));
  return { fs: counting.fs, opened, reset: counting.reset, counts: counting.counts };
}

/**
 * A file system whose timestamps have a granularity of one second (FAT, HFS+, some network
 * shares): two saves within the same second with the same size leave the stat signature as it was.
 */
function coarseClockFs(): StorageFs {
  const coarse = (stat: EntryStat | undefined): EntryStat | undefined => {
    if (!stat) return stat;
    const [ino, size, mtimeNs = '0', ctimeNs = '0'] = stat.signature.split(':');
    const second = (ns: string) => `${(BigInt(ns) / 1_000_000_000n) * 1_000_000_000n}`;
    return { ...stat, signature: `${ino}:${size}:${second(mtimeNs)}:${second(ctimeNs)}` };
  };
  return {
    ...nodeStorageFs,
    lstat: async (path) => coarse(await nodeStorageFs.lstat(path)),
    lstatNow: (path) => coarse(nodeStorageFs.lstatNow?.(path)),
  };
}

const onDisk = (...path: string[]) => join(root, 'story-workspaces', 's', ...path);

describe('reads of an unchanged tree come from memory, and every edit is still seen', () => {
  it('opens no caller file and takes no lock on an unchanged tree; an editor’s save is seen on the next read', async () => {
    const recorder = openRecorder();
    const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: recorder.fs });
    await trees.create('s', { 'outline.md': 'o', 'characters/lia/persona.md': 'p', 'manifest.json': '{"name":"s"}' });
    await pastRacyWindow();
    await trees.read('s');
    recorder.reset();
    for (let round = 0; round < 3; round++) expect((await trees.read('s')).files['characters/lia/persona.md']).toBe('p');
    expect(recorder.opened()).toEqual([]);
    expect(recorder.counts()).toMatchObject({ locks: 0, fsync: 0 });
    // Saved in an editor (same size): a new revision, and only that file is read again.
    await writeFile(onDisk('characters', 'lia', 'persona.md'), 'P');
    const edited = await trees.read('s');
    expect(edited).toMatchObject({ revision: 2, files: { 'characters/lia/persona.md': 'P', 'outline.md': 'o' } });
    expect(recorder.opened().filter((path) => !path.endsWith('manifest.json'))).toEqual(['/story-workspaces/s/characters/lia/persona.md']);
    // A file added, and one removed, outside the store.
    await writeFile(onDisk('notes.md'), 'n');
    expect((await trees.read('s')).files['notes.md']).toBe('n');
  });

  it('a same-size save within the clock’s granularity leaves the stat unchanged: content read that soon after a change is read again', async () => {
    const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: coarseClockFs() });
    await trees.create('s', { 'outline.md': 'aaaa' });
    expect((await trees.read('s')).files['outline.md']).toBe('aaaa');
    // Most likely the same second, and the same size: the signature the store sees is the one it read with.
    await writeFile(onDisk('outline.md'), 'bbbb');
    expect((await trees.read('s')).files['outline.md']).toBe('bbbb');
    // Whether or not the second turned meanwhile, a later read never goes back to the old text.
    await writeFile(onDisk('outline.md'), 'cccc');
    expect((await trees.read('s')).files['outline.md']).toBe('cccc');
  });

  it('a commit by another process (another store on the folder) is seen at once by a read from memory', async () => {
    const dir = join(root, 'story-workspaces');
    const mine = new FsTreeStore({ dir, fs: nodeStorageFs });
    const theirs = new FsTreeStore({ dir, fs: nodeStorageFs });
    const created = await mine.create('s', { 'outline.md': 'o', 'history.md': '' });
    await pastRacyWindow();
    await mine.read('s');
    await theirs.commit('s', { baseRevision: created.revision, writes: { 'outline.md': 'theirs' } });
    expect(await mine.read('s')).toMatchObject({ revision: 2, files: { 'outline.md': 'theirs' } });
    await theirs.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'h' } });
    expect((await mine.read('s')).files['history.md']).toContain('h');
    // A file restored to an older copy with its old times (rsync -t, a backup tool): ctime moves.
    await utimes(onDisk('outline.md'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect((await mine.read('s')).files['outline.md']).toBe('theirs');
  });

  it('keeps the contents of at most MAX_TREES_WITH_CONTENTS trees; one dropped is read from disk again, unchanged', async () => {
    const recorder = openRecorder();
    const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: recorder.fs });
    const count = MAX_TREES_WITH_CONTENTS + 2;
    for (let n = 0; n < count; n++) await trees.create(`w${n}`, { 'outline.md': `outline ${n}` });
    await pastRacyWindow();
    for (let n = 0; n < count; n++) await trees.read(`w${n}`);
    recorder.reset();
    // The most recent ones come from memory; w0 was dropped and is read from disk.
    expect((await trees.read(`w${count - 1}`)).files['outline.md']).toBe(`outline ${count - 1}`);
    expect(recorder.opened()).toEqual([]);
    expect((await trees.read('w0')).files['outline.md']).toBe('outline 0');
    expect(recorder.opened()).toEqual(['/story-workspaces/w0/outline.md']);
  });

  it('a layer whose "synchronous" stat calls return promises (a generic async wrapper) still works', async () => {
    const wrapped = Object.fromEntries(Object.entries(nodeStorageFs).map(([name, fn]) => [name, async (...args: unknown[]) => (fn as (...a: unknown[]) => unknown)(...args)])) as unknown as StorageFs;
    const trees = new FsTreeStore({ dir: join(root, 'story-workspaces'), fs: wrapped });
    await trees.create('s', { 'outline.md': 'o' });
    await writeFile(onDisk('outline.md'), 'edited');
    expect(await trees.read('s')).toMatchObject({ revision: 2, files: { 'outline.md': 'edited' } });
    expect(await trees.currentRevision('s')).toBe(2);
  });
});
