import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionLog, TreeStore } from '@troupe/kernel';
import { newEvent } from '@troupe/kernel/contracts';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

// Malformed calls (as from untyped JavaScript or a bad cast) and the code each must give.
const TREE_CASES: [string, (store: TreeStore) => Promise<unknown>, string][] = [
  ['create(id, null)', (store) => store.create('n', null as never), 'TREE_INVALID_INPUT'],
  ['create(id, array)', (store) => store.create('n', ['a.md'] as never), 'TREE_INVALID_INPUT'],
  ['create with a number as content', (store) => store.create('n', { 'a.md': 1 } as never), 'TREE_INVALID_INPUT'],
  ['commit without a change', (store) => store.commit('s', undefined as never), 'TREE_INVALID_INPUT'],
  ['commit without writes', (store) => store.commit('s', { baseRevision: 1 } as never), 'TREE_INVALID_INPUT'],
  ['commit with writes: null', (store) => store.commit('s', { baseRevision: 1, writes: null } as never), 'TREE_INVALID_INPUT'],
  ['commit with writes: "a.md"', (store) => store.commit('s', { baseRevision: 1, writes: 'a.md' } as never), 'TREE_INVALID_INPUT'],
  ['commit with writes: []', (store) => store.commit('s', { baseRevision: 1, writes: [] } as never), 'TREE_INVALID_INPUT'],
  ['commit with baseRevision "1"', (store) => store.commit('s', { baseRevision: '1', writes: { 'a.md': 'B' } } as never), 'TREE_INVALID_INPUT'],
  ['commit with baseRevision -1', (store) => store.commit('s', { baseRevision: -1, writes: { 'a.md': 'B' } }), 'TREE_INVALID_INPUT'],
  ['commit with baseRevision 1.5', (store) => store.commit('s', { baseRevision: 1.5, writes: { 'a.md': 'B' } }), 'TREE_INVALID_INPUT'],
  ['commit with baseRevision NaN', (store) => store.commit('s', { baseRevision: Number.NaN, writes: { 'a.md': 'B' } }), 'TREE_INVALID_INPUT'],
  ['commit with an object as content', (store) => store.commit('s', { baseRevision: 1, writes: { 'a.md': {} } } as never), 'TREE_INVALID_INPUT'],
  ['commit to a bad path', (store) => store.commit('s', { baseRevision: 1, writes: { '../a.md': 'B' } }), 'TREE_INVALID_PATH'],
  ['settle without a settlement', (store) => store.settle('s', null as never), 'TREE_INVALID_INPUT'],
  ['settle without appends', (store) => store.settle('s', { marker: 'm1' } as never), 'TREE_INVALID_INPUT'],
  ['settle with appends: "x"', (store) => store.settle('s', { marker: 'm1', appends: 'x' } as never), 'TREE_INVALID_INPUT'],
  ['settle with a number appended', (store) => store.settle('s', { marker: 'm1', appends: { 'history.md': 3 } } as never), 'TREE_INVALID_INPUT'],
  ['settle with null appended', (store) => store.settle('s', { marker: 'm1', appends: { 'history.md': null } } as never), 'TREE_INVALID_INPUT'],
  ['settle without a marker', (store) => store.settle('s', { appends: {} } as never), 'TREE_INVALID_MARKER'],
  ['read(42)', (store) => store.read(42 as never), 'TREE_INVALID_ID'],
];

const SESSION_CASES: [string, (log: SessionLog) => Promise<unknown>, string][] = [
  ['append(id, null)', (log) => log.append('s', null as never), 'SESSION_INVALID_EVENT'],
  ['append(id, event) without the array', (log) => log.append('s', newEvent('test/a') as never), 'SESSION_INVALID_EVENT'],
  ['append(id, "x")', (log) => log.append('s', 'x' as never), 'SESSION_INVALID_EVENT'],
  ['append(id, [null])', (log) => log.append('s', [null as never]), 'SESSION_INVALID_EVENT'],
  ['append(null, [])', (log) => log.append(null as never, []), 'SESSION_INVALID_ID'],
];

describe('malformed input gets a clear code and writes nothing', () => {
  it(`trees: ${TREE_CASES.length} malformed calls, the same codes as MemoryTreeStore`, async () => {
    const { trees } = fsStorage({ root });
    const memory = new MemoryTreeStore();
    for (const store of [trees, memory]) await store.create('s', { 'a.md': 'A' });
    for (const [name, call, code] of TREE_CASES) {
      const error = await call(trees).catch((caught: unknown) => caught);
      expect((error as { code?: string }).code, name).toBe(code);
      expect(error, name).not.toBeInstanceOf(TypeError);
      expect((error as Error).message, name).not.toMatch(/Cannot (read|convert)|is not (a function|iterable)/);
      expect(await codeOf(call(memory)), `${name} (MemoryTreeStore)`).toBe(code);
    }
    expect(await trees.read('s')).toEqual({ treeId: 's', revision: 1, files: { 'a.md': 'A' } });
    expect(await trees.list()).toEqual(['s']);
    expect(await readdir(join(root, 'story-workspaces', 's', '.troupe'))).toEqual(['record.json']);
  });

  it(`sessions: ${SESSION_CASES.length + 3} malformed calls, the same codes as MemorySessionLog where it defines them`, async () => {
    const { sessions } = fsStorage({ root });
    const memory = new MemorySessionLog();
    for (const [name, call, code] of SESSION_CASES) {
      expect(await codeOf(call(sessions)), name).toBe(code);
      expect(await codeOf(call(memory)), `${name} (MemorySessionLog)`).toBe(code);
    }
    expect(await sessions.list()).toEqual([]);
    await sessions.append('s', [newEvent('test/a', {}, { key: 'k' })]);
    expect(await codeOf(sessions.findLatest('s', null as never))).toBe('SESSION_INVALID_EVENT');
    expect(await codeOf(sessions.findLatest('s', { type: 'test/a' } as never))).toBe('SESSION_INVALID_EVENT');
    expect(await codeOf(sessions.import('t', 42 as never))).toBe('SESSION_INVALID_EVENT');
    expect(await sessions.list()).toEqual(['s']);
    expect(await sessions.read('s')).toHaveLength(1);
  });
});
