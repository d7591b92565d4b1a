import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
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

const RUNS = STRESS ? 10_000 : 2_000;
const TREE_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TREE_PATH = /^([a-z0-9][a-z0-9_-]{0,63}\/){0,7}[a-z0-9][a-z0-9_-]{0,63}\.(md|json)$/;

/** Every entry under `dir` (recursive, never following links), relative to `dir`, with its kind. */
async function walk(dir: string, base = dir): Promise<{ path: string; kind: 'file' | 'dir' | 'other' }[]> {
  const found: { path: string; kind: 'file' | 'dir' | 'other' }[] = [];
  for (const name of await readdir(dir)) {
    const full = join(dir, name);
    const stat = await lstat(full);
    const kind = stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
    found.push({ path: relative(base, full), kind });
    if (kind === 'dir') found.push(...(await walk(full, base)));
  }
  return found;
}

/**
 * Checks everything under the parent temp folder: only `store/story-workspaces/<id>/…` exists,
 * every id is allowlisted, and every caller file in a tree is one the test saw accepted.
 * @returns the tree ids found
 */
async function assertConfined(accepted: ReadonlyMap<string, ReadonlySet<string>>): Promise<string[]> {
  const trees = new Set<string>();
  for (const { path, kind } of await walk(root)) {
    expect(kind, path).not.toBe('other'); // no symlinks, sockets or devices anywhere
    const parts = path.split('/');
    if (parts.length <= 2) {
      expect(['store', 'store/story-workspaces'], path).toContain(path);
      continue;
    }
    expect(parts.slice(0, 2).join('/'), path).toBe('store/story-workspaces');
    const [id, ...inside] = parts.slice(2);
    expect(id, path).toMatch(TREE_ID);
    trees.add(id as string);
    if (inside.length === 0 || inside[0] === '.troupe') continue;
    if (kind === 'file') expect(accepted.get(id as string)?.has(inside.join('/')), path).toBe(true);
  }
  return [...trees];
}

/** Paths built to hurt: traversal, absolute and drive paths, backslashes, NUL, devices, Unicode look-alikes, length. */
const hostilePath = fc.oneof(
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  {
    weight: 4,
    arbitrary: fc
    .tuple(
      fc.constantFrom('', '/', '../', '../../', './', 'C:\\', 'C:', '\\\\server\\share\\', '~/', '%2e%2e/'),
      fc.array(
        fc.tuple(
          fc.constantFrom('..', '.', '', 'a', 'lia', 'characters', 'con', 'NUL', 'com1', 'lpt9', '.troupe', 'story-workspaces', 'x'.repeat(64), 'x'.repeat(65), 'ａ', 'é', 'e\u0301', '\u0000', 'a\u0000b', ' ', 'a.', 'a ', '\u202e', '故事', 'A'),
          fc.constantFrom('/', '\\', '//', '/./', '/../'),
        ),
        { maxLength: 9 },
      ),
      fc.constantFrom('a.md', 'b.json', 'history.md', 'con.md', 'nul.json', 'a.md.', 'a .md', 'a.txt', 'a.MD', '.md', 'é.md', 'e\u0301.md', 'ａ.md', 'a\u0000.md', `${'y'.repeat(64)}.md`, `${'y'.repeat(65)}.md`, '..', ''),
    )
    .map(([prefix, middle, last]) => `${prefix}${middle.map(([segment, separator]) => `${segment}${separator}`).join('')}${last}`),
  },
  // Mostly valid paths (deep, long, near the limits), so accepted writes are fuzzed too.
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.array(fc.constantFrom('a', 'lia', 'characters', 'a-b_c', '0', 'x'.repeat(64)), { maxLength: 9 }),
        fc.constantFrom('a.md', 'b.json', 'history.md', 'manifest.json', `${'y'.repeat(64)}.md`, 'com10.md', 'conx.md'),
      )
      .map(([folders, file]) => [...folders, file].join('/')),
  },
);

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
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 80 }), async (id) => {
        const code = await codeOf(trees.create(id, { 'a.md': id }));
        if (code === undefined) {
          accepted += 1;
          expect(id).toMatch(TREE_ID);
          expect(await readFile(join(root, 'store', 'story-workspaces', id, 'a.md'), 'utf8')).toBe(id);
        } else {
          expect(['TREE_INVALID_ID', 'TREE_EXISTS']).toContain(code);
        }
      }),
      { numRuns: RUNS },
    );
    const ids = await assertConfined(new Map((await trees.list()).map((id) => [id, new Set(['a.md'])])));
    expect(ids.length).toBe(accepted);
    console.info(`id fuzz: ${accepted} accepted, all inside the root`);
  });

  it(`confines commit, settle and create for ${RUNS} hostile file paths: every file lands inside its tree, nothing outside`, async () => {
    const { trees } = fsStorage({ root: join(root, 'store') });
    // Ten target trees, so no tree grows so large that every commit rereads hundreds of files.
    const accepted = new Map<string, Set<string>>();
    const revisions = new Map<string, number>();
    for (let index = 0; index < 10; index++) {
      revisions.set(`s${index}`, (await trees.create(`s${index}`, { 'outline.md': 'o' })).revision);
      accepted.set(`s${index}`, new Set(['outline.md']));
    }
    let run = 0;
    let writes = 0;
    const check = async (code: string | undefined, path: string, tree: string): Promise<void> => {
      if (code !== undefined) {
        expect(code, JSON.stringify(path)).toBe('TREE_INVALID_PATH');
        return;
      }
      const normalised = path.normalize('NFC');
      expect(normalised, JSON.stringify(path)).toMatch(TREE_PATH);
      expect((await lstat(join(root, 'store', 'story-workspaces', tree, normalised))).isFile()).toBe(true);
      accepted.get(tree)?.add(normalised) ?? accepted.set(tree, new Set([normalised]));
      writes += 1;
    };
    await fc.assert(
      fc.asyncProperty(hostilePath, async (path) => {
        run += 1;
        const tree = `s${run % 10}`;
        const committed = await trees.commit(tree, { baseRevision: revisions.get(tree) ?? 0, writes: { [path]: 'PWNED' } }).catch((error: { code?: string }) => error);
        if ('revision' in committed) revisions.set(tree, committed.revision);
        await check('revision' in committed ? undefined : committed.code, path, tree);
        const settled = await trees.settle(tree, { marker: `m${run}`, appends: { [path]: 'PWNED' } }).catch((error: { code?: string }) => error);
        if ('revision' in settled) revisions.set(tree, settled.revision);
        await check('revision' in settled ? undefined : settled.code, path, tree);
        const created = await trees.create(`c${run}`, { [path]: 'PWNED' }).catch((error: { code?: string }) => error);
        await check('revision' in created ? undefined : created.code, path, `c${run}`);
      }),
      { numRuns: RUNS },
    );
    await assertConfined(accepted);
    expect(writes).toBeGreaterThan(0);
    console.info(`path fuzz: ${RUNS} paths × 3 operations, ${writes} accepted writes, all inside their trees`);
  }, STRESS ? 600_000 : undefined); // 30 000 store calls: minutes on a shared machine

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
