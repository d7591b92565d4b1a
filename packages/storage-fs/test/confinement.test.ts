import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

const STRESS = process.env.STRESS === '1';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const BAD_IDS = [
  '', '.', '..', '../x', '../../etc', '/etc/passwd', '/', 'C:\\x', 'C:', 'a/b', 'a\\b', '%2e%2e', '%2e%2e%2fx', 'x\u0000y', '\u0000',
  'CON', 'con', 'con.md', 'nul', 'NUL', 'prn', 'aux', 'com1', 'COM1', 'lpt9', 'name.', 'name ', ' name', '.hidden', '-lead',
  '_lead', '\uff0e\uff0e', '\u2102on', 'e\u0301', '\u00e9', 'a\u202eb', 'x'.repeat(65), 'x'.repeat(256), 'A', 'Story', 'a b',
  'a\tb', 'a\nb', 'a:b', 'a*b', 'a?b', 'a"b', 'a<b', 'a>b', 'a|b', '~', '~root', '$HOME', 'a/../b', './a', 'a/.', '\u200bzero',
  'ａｂｃ', '故事', 'a.b', 'a..b', 'story-workspaces/../x',
];

/** Every path under the storage root after the attack, and whether any escaped it. */
async function filesOutside(): Promise<string[]> {
  const outside = await readdir(join(root, '..'));
  return outside.filter((name) => name.startsWith('escape'));
}

describe('id and path confinement', () => {
  it(`rejects ${BAD_IDS.length} hand-picked bad ids with TREE_INVALID_ID / SESSION_INVALID_ID`, async () => {
    expect(BAD_IDS.length).toBeGreaterThanOrEqual(60);
    const { trees, sessions } = fsStorage({ root: join(root, 'store') });
    for (const id of BAD_IDS) {
      expect(await codeOf(trees.create(id, {})), JSON.stringify(id)).toBe('TREE_INVALID_ID');
      expect(await codeOf(sessions.append(id, [])), JSON.stringify(id)).toBe('SESSION_INVALID_ID');
    }
    expect(await readdir(root)).toEqual([]); // nothing created anywhere, not even the store folder
  });

  it(`accepts only allowlisted ids and keeps every accepted one inside the root (${STRESS ? 10_000 : 2_000} random Unicode strings)`, async () => {
    const { trees } = fsStorage({ root: join(root, 'store') });
    const treesDir = resolve(root, 'store', 'story-workspaces');
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 80 }), async (id) => {
        const code = await codeOf(trees.create(id, { 'a.md': id }));
        if (code === undefined) {
          accepted += 1;
          expect(id).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
          const rel = relative(treesDir, resolve(treesDir, id));
          expect(rel.startsWith('..') || rel === '' || rel.includes('/')).toBe(false);
          await trees.delete(id);
        } else {
          expect(['TREE_INVALID_ID', 'TREE_EXISTS']).toContain(code);
        }
      }),
      { numRuns: STRESS ? 10_000 : 2_000 },
    );
    expect(await filesOutside()).toEqual([]);
    console.info(`id fuzz: ${accepted} accepted, all inside the root`);
  });

  it('refuses to write through a symlinked file or folder planted in a tree; the outside stays unchanged', async () => {
    const { trees } = fsStorage({ root: join(root, 'store') });
    await trees.create('s', { 'outline.md': 'o', 'characters/lia/persona.md': 'p' });
    const outsideDir = join(root, 'outside');
    await mkdir(outsideDir);
    await writeFile(join(outsideDir, 'secret.md'), 'SECRET');
    const treeDir = join(root, 'store', 'story-workspaces', 's');
    await symlink(join(outsideDir, 'secret.md'), join(treeDir, 'linked.md'));
    await symlink(outsideDir, join(treeDir, 'characters', 'evil'));
    const revision = (await trees.read('s')).revision;
    expect(await codeOf(trees.commit('s', { baseRevision: revision, writes: { 'linked.md': 'PWNED' } }))).toBe('TREE_INVALID_PATH');
    expect(await codeOf(trees.commit('s', { baseRevision: revision, writes: { 'characters/evil/secret.md': 'PWNED' } }))).toBe('TREE_INVALID_PATH');
    expect(await codeOf(trees.settle('s', { marker: 't1', appends: { 'linked.md': 'PWNED' } }))).toBe('TREE_INVALID_PATH');
    expect(await codeOf(trees.settle('s', { marker: 't2', appends: { 'characters/evil/new.md': 'PWNED' } }))).toBe('TREE_INVALID_PATH');
    expect(await readFile(join(outsideDir, 'secret.md'), 'utf8')).toBe('SECRET');
    expect(await readdir(outsideDir)).toEqual(['secret.md']);
    // Links are not part of the tree and are never followed when reading.
    expect(Object.keys((await trees.read('s')).files).sort()).toEqual(['characters/lia/persona.md', 'outline.md']);
  });

  it('refuses a tree folder that is itself a symlink', async () => {
    const { trees } = fsStorage({ root: join(root, 'store') });
    await trees.create('real', { 'a.md': 'A' });
    await symlink(join(root, 'store', 'story-workspaces', 'real'), join(root, 'store', 'story-workspaces', 'alias'));
    expect(await codeOf(trees.read('alias'))).toBe('TREE_CORRUPT');
  });
});
