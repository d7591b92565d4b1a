import { constants } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { MemFs } from './mem-fs.js';

const ROOT = '/store';
const TREE = `${ROOT}/story-workspaces/s`;
const BEFORE = { 'manifest.json': '{"name":"雾港"}', 'outline.md': 'old outline', 'notes.md': 'old notes', 'history.md': '# H\n' };
const CHANGE = { 'outline.md': 'new outline', 'notes.md': null, 'characters/lia/persona.md': 'new persona' };

async function seeded(): Promise<MemFs> {
  const mem = new MemFs();
  await mem.fs.mkdir('/store');
  await fsStorage({ root: ROOT, fs: mem.fs }).trees.create('s', BEFORE);
  mem.syncAll();
  return mem;
}

/** Reopens the disk left by a power cut (the dead process's lock is gone with it). */
async function reopen(mem: MemFs) {
  const after = mem.crash();
  await after.fs.unlink(`${TREE}/.troupe/lock`).catch(() => undefined);
  return { after, trees: fsStorage({ root: ROOT, fs: after.fs }).trees };
}

const withoutTemps = (files: Record<string, string>) => Object.keys(files).filter((path) => path.includes('.troupe-tmp-') || path.endsWith('intent.json'));

describe('power loss at every operation (only fsync\'ed data and entries survive)', () => {
  // Small files travel inside the intent; a file over the intent's limit is staged before it.
  it.each([
    ['small files (carried by the intent)', CHANGE],
    ['small files and one staged big file', { ...CHANGE, 'big.md': 'B'.repeat(100 * 1024) }],
  ])('a multi-file commit of %s reopens to exactly the old or exactly the new tree', async (_, CHANGE) => {
    const probe = await seeded();
    const start = probe.ops;
    const expected = (await fsStorage({ root: ROOT, fs: probe.fs }).trees.commit('s', { baseRevision: 1, writes: CHANGE })).files;
    const steps = probe.ops - start;
    const seen = { old: 0, new: 0 };
    for (let cut = 0; cut <= steps; cut++) {
      const mem = await seeded();
      mem.cutAt = mem.ops + cut;
      await fsStorage({ root: ROOT, fs: mem.fs }).trees.commit('s', { baseRevision: 1, writes: CHANGE }).catch(() => undefined);
      const { after, trees } = await reopen(mem);
      const snapshot = await trees.read('s');
      if (snapshot.revision === 1) {
        expect(snapshot.files, `cut at ${cut}`).toEqual({ ...BEFORE, 'manifest.json': '{\n  "name": "雾港",\n  "revision": 1\n}\n' });
        seen.old += 1;
      } else {
        expect({ revision: snapshot.revision, files: snapshot.files }, `cut at ${cut}`).toEqual({ revision: 2, files: expected });
        seen.new += 1;
      }
      expect(withoutTemps(after.files(TREE))).toEqual([]);
    }
    expect(seen.old).toBeGreaterThan(3);
    expect(seen.new).toBeGreaterThan(3);
  });

  it('a settlement survives or vanishes whole, and a retry after the cut writes it exactly once', async () => {
    const settlement = { marker: 'turn-1:0', appends: { 'history.md': 'Lia found the key.', 'characters/lia/knowledge.md': 'key' } };
    const probe = await seeded();
    const start = probe.ops;
    await fsStorage({ root: ROOT, fs: probe.fs }).trees.settle('s', settlement);
    const steps = probe.ops - start;
    for (let cut = 0; cut <= steps; cut++) {
      const mem = await seeded();
      mem.cutAt = mem.ops + cut;
      await fsStorage({ root: ROOT, fs: mem.fs }).trees.settle('s', settlement).catch(() => undefined);
      const { trees } = await reopen(mem);
      const retried = await trees.settle('s', settlement);
      const snapshot = await trees.read('s');
      expect(snapshot.files['history.md'], `cut at ${cut}`).toBe('# H\n<!-- troupe:settle turn-1:0 -->\nLia found the key.\n');
      expect(snapshot.files['characters/lia/knowledge.md'], `cut at ${cut}`).toBe('<!-- troupe:settle turn-1:0 -->\nkey\n');
      expect(snapshot.revision).toBe(2);
      expect(retried.revision).toBe(2);
    }
  });

  it('a change acknowledged before a power cut survives it; the intent it leaves behind is finished, never replayed', async () => {
    const mem = await seeded();
    const settled = await fsStorage({ root: ROOT, fs: mem.fs }).trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'Lia found the key.' } });
    expect(settled).toEqual({ applied: true, revision: 2 });
    // Power cut right after the call returned: the removal of the intent was not synced.
    const after = mem.crash();
    await after.fs.unlink(`${TREE}/.troupe/lock`).catch(() => undefined);
    expect(Object.keys(after.files(TREE))).toContain('.troupe/intent.json');
    // A player edits the history before the next start: replaying the intent would cut that off.
    const history = `${TREE}/history.md`;
    const fd = await after.fs.open(history, constants.O_WRONLY | constants.O_APPEND);
    const edit = Buffer.from('\nA line the player wrote.');
    await after.fs.write(fd, edit, 0, edit.length, null);
    await after.fs.close(fd);
    const snapshot = await fsStorage({ root: ROOT, fs: after.fs }).trees.read('s');
    expect(snapshot.files['history.md']).toBe('# H\n<!-- troupe:settle turn-1:0 -->\nLia found the key.\n\nA line the player wrote.');
    // The edit became its own revision on top of the acknowledged one; nothing is left over.
    expect(snapshot.revision).toBe(3);
    expect(withoutTemps(after.files(TREE))).toEqual([]);
  });
});
