import { describe, expect, it } from 'vitest';
import { codeOf, withFixture } from './contract-helpers.js';
import { KernelStorageError } from '../ports/storage-errors.js';
import type { TreeStore } from '../ports/tree-store.js';

/** A store under test and how to clean it up. */
export interface TreeStoreFixture {
  readonly store: TreeStore;
  readonly cleanup?: () => Promise<void>;
}

/**
 * The behaviour every {@link TreeStore} must have. Call it from a vitest file:
 * `describeTreeStoreContract('fs', async () => ({ store, cleanup }))`.
 * @param name - label for the describe block
 * @param make - creates a fresh, empty store per test
 */
export function describeTreeStoreContract(name: string, make: () => Promise<TreeStoreFixture>): void {
  describe(`TreeStore contract: ${name}`, () => {
    it('creates a tree at revision 1 and reads it back', () =>
      withFixture(make, async ({ store }) => {
        const created = await store.create('story-1', { 'outline.md': '# 大纲\n', 'characters/lia/persona.md': 'Lia' });
        expect(created.revision).toBe(1);
        const read = await store.read('story-1');
        expect(read).toEqual({ treeId: 'story-1', revision: 1, files: { 'outline.md': '# 大纲\n', 'characters/lia/persona.md': 'Lia' } });
        expect(await store.list()).toEqual(['story-1']);
      }));

    it('refuses to create a tree twice', () =>
      withFixture(make, async ({ store }) => {
        await store.create('story-1', {});
        expect(await codeOf(store.create('story-1', {}))).toBe('TREE_EXISTS');
      }));

    it('reports a missing tree', () =>
      withFixture(make, async ({ store }) => {
        expect(await codeOf(store.read('nope'))).toBe('TREE_NOT_FOUND');
        expect(await codeOf(store.commit('nope', { baseRevision: 1, writes: {} }))).toBe('TREE_NOT_FOUND');
      }));

    it('commits writes and deletions as one new revision', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'a.md': 'A', 'b.md': 'B' });
        const next = await store.commit('s', { baseRevision: 1, writes: { 'a.md': 'A2', 'b.md': null, 'sections/c.md': 'C' } });
        expect(next.revision).toBe(2);
        expect((await store.read('s')).files).toEqual({ 'a.md': 'A2', 'sections/c.md': 'C' });
      }));

    it('rejects a stale base revision and writes nothing', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'a.md': 'A' });
        await store.commit('s', { baseRevision: 1, writes: { 'a.md': 'mine' } });
        const error = await store.commit('s', { baseRevision: 1, writes: { 'a.md': 'theirs', 'b.md': 'B' } }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(Error);
        expect(error).toMatchObject({ baseRevision: 1, currentRevision: 2 });
        expect((error as { code: string }).code).toBe('TREE_REVISION_CONFLICT');
        expect(await store.read('s')).toEqual({ treeId: 's', revision: 2, files: { 'a.md': 'mine' } });
      }));

    it('lets exactly one of several commits on the same base win', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'a.md': '0' });
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, (_, index) => store.commit('s', { baseRevision: 1, writes: { 'a.md': String(index) } })),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
        expect(rejected.map((result) => (result.reason as { code?: string }).code)).toEqual(Array(9).fill('TREE_REVISION_CONFLICT'));
        expect((await store.read('s')).revision).toBe(2);
      }));

    it('validates ids and paths with TREE_INVALID_ID / TREE_INVALID_PATH', () =>
      withFixture(make, async ({ store }) => {
        for (const id of ['', '../x', 'A', 'a/b', 'x'.repeat(65), 'con', 'a\u0000']) expect(await codeOf(store.create(id, {}))).toBe('TREE_INVALID_ID');
        await store.create('s', {});
        const badPaths = ['../a.md', '/a.md', 'a\\b.md', 'a.txt', 'A.md', 'x/../a.md', 'a.md.', 'a .md', 'nul.md', 'a\u0000.md', `${'x/'.repeat(9)}a.md`, ''];
        for (const path of badPaths) {
          expect(await codeOf(store.commit('s', { baseRevision: 1, writes: { [path]: 'x' } })), path).toBe('TREE_INVALID_PATH');
        }
        expect((await store.read('s')).revision).toBe(1);
      }));

    it('rejects malformed input with TREE_INVALID_INPUT and writes nothing', () =>
      withFixture(make, async ({ store }) => {
        expect(await codeOf(store.create('s', null as never))).toBe('TREE_INVALID_INPUT');
        expect(await codeOf(store.create('s', { 'a.md': 42 } as never))).toBe('TREE_INVALID_INPUT');
        await store.create('s', { 'a.md': 'A' });
        const bad: unknown[] = [undefined, null, { baseRevision: 1 }, { baseRevision: '1', writes: {} }, { baseRevision: 0, writes: {} }, { baseRevision: 1, writes: [] }, { baseRevision: 1, writes: { 'a.md': 7 } }];
        for (const change of bad) expect(await codeOf(store.commit('s', change as never)), JSON.stringify(change)).toBe('TREE_INVALID_INPUT');
        expect(await codeOf(store.settle('s', { marker: 'm', appends: null } as never))).toBe('TREE_INVALID_INPUT');
        expect(await codeOf(store.settle('s', { marker: 'm', appends: { 'history.md': 1 } } as never))).toBe('TREE_INVALID_INPUT');
        expect(await codeOf(store.settle('s', undefined as never))).toBe('TREE_INVALID_INPUT');
        expect(await store.read('s')).toEqual({ treeId: 's', revision: 1, files: { 'a.md': 'A' } });
        // Input is checked before existence, in every implementation.
        expect(await codeOf(store.commit('missing', { baseRevision: 1 } as never))).toBe('TREE_INVALID_INPUT');
      }));

    it('keeps the manifest revision in step and preserves caller fields', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'manifest.json': JSON.stringify({ name: '雾港', characters: ['lia'] }) });
        const first = JSON.parse((await store.read('s')).files['manifest.json'] ?? '{}');
        expect(first).toMatchObject({ name: '雾港', characters: ['lia'], revision: 1 });
        await store.commit('s', { baseRevision: 1, writes: { 'outline.md': 'x' } });
        const second = JSON.parse((await store.read('s')).files['manifest.json'] ?? '{}');
        expect(second).toMatchObject({ name: '雾港', characters: ['lia'], revision: 2 });
      }));

    it('settles once per marker, rebased on the latest revision', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'history.md': '# History\n' });
        await store.commit('s', { baseRevision: 1, writes: { 'history.md': '# History\nplayer edit\n' } });
        const first = await store.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'Lia found the key.', 'characters/lia/knowledge.md': 'key' } });
        expect(first).toEqual({ applied: true, revision: 3 });
        const again = await store.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'Lia found the key.', 'characters/lia/knowledge.md': 'key' } });
        expect(again).toEqual({ applied: false, revision: 3 });
        const files = (await store.read('s')).files;
        expect(files['history.md']).toBe('# History\nplayer edit\n<!-- troupe:settle turn-1:0 -->\nLia found the key.\n');
        expect(files['characters/lia/knowledge.md']).toBe('<!-- troupe:settle turn-1:0 -->\nkey\n');
      }));

    it('rejects the same marker with different content', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', {});
        await store.settle('s', { marker: 'm1', appends: { 'history.md': 'one' } });
        expect(await codeOf(store.settle('s', { marker: 'm1', appends: { 'history.md': 'two' } }))).toBe('TREE_SETTLE_CONFLICT');
        expect(await codeOf(store.settle('s', { marker: 'bad marker', appends: {} }))).toBe('TREE_INVALID_MARKER');
      }));

    it('settles each marker exactly once under concurrency', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'history.md': '' });
        const settlement = { marker: 'turn-9:0', appends: { 'history.md': 'once' } };
        const results = await Promise.all(Array.from({ length: 10 }, () => store.settle('s', settlement)));
        expect(results.filter((result) => result.applied)).toHaveLength(1);
        const history = (await store.read('s')).files['history.md'] ?? '';
        expect(history.split('troupe:settle turn-9:0')).toHaveLength(2);
      }));

    it('currentRevision (optional) tells the revision a read would return, for every kind of change', () =>
      withFixture(make, async ({ store }) => {
        // Optional in the port: a store without it is read instead by its callers.
        if (!store.currentRevision) return;
        const current = (treeId: string) => store.currentRevision?.(treeId) ?? Promise.reject(new Error('unreachable'));
        await store.create('s', { 'history.md': '' });
        expect(await current('s')).toBe(1);
        await store.commit('s', { baseRevision: 1, writes: { 'a.md': 'A' } });
        expect(await current('s')).toBe(2);
        await store.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'once' } });
        expect(await current('s')).toBe(3);
        // A settlement already applied changes nothing, and neither does asking.
        await store.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'once' } });
        expect(await current('s')).toBe(3);
        expect(await current('s')).toBe((await store.read('s')).revision);
        expect(await codeOf(current('missing'))).toBe('TREE_NOT_FOUND');
        expect(await codeOf(current('../x'))).toBe('TREE_INVALID_ID');
        await store.delete('s');
        expect(await codeOf(current('s'))).toBe('TREE_NOT_FOUND');
      }));

    it('deletes trees', () =>
      withFixture(make, async ({ store }) => {
        await store.create('s', { 'a.md': 'A' });
        expect(await store.delete('s')).toBe(true);
        expect(await store.delete('s')).toBe(false);
        expect(await store.list()).toEqual([]);
        expect(await codeOf(store.read('s'))).toBe('TREE_NOT_FOUND');
      }));

    it('throws KernelStorageError instances recognisable across copies', () =>
      withFixture(make, async ({ store }) => {
        const error = await store.read('missing').catch((caught: unknown) => caught);
        expect(KernelStorageError.isInstance(error)).toBe(true);
      }));
  });
}
