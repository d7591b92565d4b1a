import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const onDisk = (...path: string[]) => join(root, 'story-workspaces', 's', ...path);

describe('edits made outside the API', () => {
  it('absorbs a raw disk edit as its own revision and rejects a commit based on the old one', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'outline.md': 'v1', 'manifest.json': '{"name":"雾港"}' });
    await writeFile(onDisk('outline.md'), 'player edit in an editor');
    const error = await trees.commit('s', { baseRevision: 1, writes: { 'outline.md': 'stale overwrite' } }).catch((caught: unknown) => caught);
    expect((error as { code: string }).code).toBe('TREE_REVISION_CONFLICT');
    const snapshot = await trees.read('s');
    expect(snapshot.revision).toBe(2);
    expect(snapshot.files['outline.md']).toBe('player edit in an editor');
    expect(JSON.parse(snapshot.files['manifest.json'] ?? '')).toMatchObject({ name: '雾港', revision: 2 });
  });

  it('absorbs added and deleted files, ignores foreign names, and does not count a touch as an edit', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'outline.md': 'o', 'notes.md': 'n' });
    await writeFile(onDisk('added.md'), 'new');
    await unlink(onDisk('notes.md'));
    await writeFile(onDisk('.DS_Store'), 'junk');
    await writeFile(onDisk('Readme.TXT'), 'junk');
    const snapshot = await trees.read('s');
    expect(snapshot).toEqual({ treeId: 's', revision: 2, files: { 'outline.md': 'o', 'added.md': 'new' } });
    await writeFile(onDisk('outline.md'), 'o'); // same bytes, new mtime/ctime
    expect((await trees.read('s')).revision).toBe(2);
  });

  it('settle rebases onto a raw player edit: player bytes kept, block once at the end, one revision per change', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'history.md': '# History\n' });
    await writeFile(onDisk('history.md'), '# History (edited by the player)\nno newline at the end');
    const result = await trees.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'Lia found the key.' } });
    expect(result).toEqual({ applied: true, revision: 3 });
    expect(await readFile(onDisk('history.md'), 'utf8')).toBe(
      '# History (edited by the player)\nno newline at the end\n<!-- troupe:settle turn-1:0 -->\nLia found the key.\n',
    );
  });

  it('survives a player breaking manifest.json: no crash, no data loss, the broken text kept as is', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'manifest.json': '{"name":"x"}', 'outline.md': 'o' });
    await writeFile(onDisk('manifest.json'), '{"name": "x", oops');
    const snapshot = await trees.read('s');
    expect(snapshot.files['manifest.json']).toBe('{"name": "x", oops');
    const next = await trees.commit('s', { baseRevision: snapshot.revision, writes: { 'outline.md': 'o2' } });
    expect(next.files).toEqual({ 'manifest.json': '{"name": "x", oops', 'outline.md': 'o2' });
    await trees.settle('s', { marker: 'm', appends: { 'history.md': 'h' } });
    expect((await trees.read('s')).revision).toBe(next.revision + 1);
  });

  it('reports a damaged commit record as TREE_CORRUPT instead of guessing', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', {});
    await writeFile(onDisk('.troupe', 'record.json'), 'garbage');
    expect(await codeOf(trees.read('s'))).toBe('TREE_CORRUPT');
  });
});
