import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const onDisk = (...path: string[]) => join(root, 'story-workspaces', 's', ...path);
// 「秘密：父亲是晨星号的船长。」 as a Chinese Windows editor saves it by default (GBK), not UTF-8.
const GBK = Buffer.from('2320c3d8c3dca3bab8b8c7d7cac7b3bfd0c7bac5b5c4b4acb3a4a1a30a', 'hex');

async function withGbkKnowledge() {
  const { trees } = fsStorage({ root });
  await trees.create('s', { 'manifest.json': '{"name":"雾港"}', 'history.md': 'h\n', 'characters/lia/knowledge.md': '# Lia\n' });
  await writeFile(onDisk('characters', 'lia', 'knowledge.md'), GBK);
  return trees;
}

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as { code: string; message: string });

describe('a tree file that is not UTF-8 text (a player saved it in GBK)', () => {
  it('is reported by read: TREE_CORRUPT naming the file and what to do, never mojibake', async () => {
    const trees = await withGbkKnowledge();
    const error = await failure(trees.read('s'));
    expect(error?.code).toBe('TREE_CORRUPT');
    expect(error?.message).toContain(join('s', 'characters', 'lia', 'knowledge.md'));
    expect(error?.message).toMatch(/not UTF-8.*save it as UTF-8/);
  });

  it('no write can rewrite it from a lossy decode: commits and settlements are refused and the bytes stay', async () => {
    const trees = await withGbkKnowledge();
    expect((await failure(trees.commit('s', { baseRevision: 1, writes: { 'history.md': 'h2\n' } })))?.code).toBe('TREE_CORRUPT');
    expect((await failure(trees.commit('s', { baseRevision: 1, writes: { 'characters/lia/knowledge.md': '# Lia\nnew\n' } })))?.code).toBe('TREE_CORRUPT');
    expect((await failure(trees.settle('s', { marker: 'story:t1', appends: { 'characters/lia/knowledge.md': '- saw the player\n', 'history.md': '- x\n' } })))?.code).toBe('TREE_CORRUPT');
    expect(await readFile(onDisk('characters', 'lia', 'knowledge.md'))).toEqual(GBK);
    expect(await readFile(onDisk('history.md'), 'utf8')).toBe('h\n');
    // A fresh process (nothing in memory) sees the same.
    expect((await failure(fsStorage({ root }).trees.read('s')))?.code).toBe('TREE_CORRUPT');
  });

  it('once saved as UTF-8 it is absorbed as an edit and everything works again', async () => {
    const trees = await withGbkKnowledge();
    await failure(trees.read('s'));
    await writeFile(onDisk('characters', 'lia', 'knowledge.md'), '# Lia 知道的事\n- 秘密\n');
    const snapshot = await trees.read('s');
    expect(snapshot.files['characters/lia/knowledge.md']).toBe('# Lia 知道的事\n- 秘密\n');
    await trees.settle('s', { marker: 'story:t1', appends: { 'characters/lia/knowledge.md': '- saw the player\n' } });
    expect((await trees.read('s')).files['characters/lia/knowledge.md']).toContain('- saw the player');
  });

  it('a new non-UTF-8 file (a source dropped into the folder) is reported too; a UTF-8 BOM is kept as it is', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', { 'outline.md': 'o' });
    await mkdir(onDisk('sources'), { recursive: true });
    await writeFile(onDisk('sources', 'bom.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('雾港\n')]));
    expect((await trees.read('s')).files['sources/bom.md']).toBe('\ufeff雾港\n');
    await writeFile(onDisk('sources', 'lore.md'), GBK);
    const error = await failure(trees.read('s'));
    expect(error?.code).toBe('TREE_CORRUPT');
    expect(error?.message).toContain(join('sources', 'lore.md'));
  });
});
