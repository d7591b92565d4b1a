import { mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MemoryTreeStore } from '@troupe/kernel/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { tempRoot } from './helpers.js';

const RUNS = process.env.STRESS === '1' ? 1_000 : 100;
const PATHS = ['history.md', 'outline.md', 'characters/lia/knowledge.md', 'manifest.json'];
const TEXTS = ['', 'a', 'player text\n', '{"name":"雾港"}', '{broken', '莉娅\n\n', 'no newline'];

type Op =
  | { kind: 'commit'; stale: boolean; writes: Record<string, string | null> }
  | { kind: 'settle'; marker: string; appends: Record<string, string> }
  | { kind: 'edit'; path: string; content: string | null };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('commit' as const),
    stale: fc.boolean(),
    writes: fc.dictionary(fc.constantFrom(...PATHS), fc.option(fc.constantFrom(...TEXTS), { nil: null }), { maxKeys: 3 }),
  }),
  fc.record({
    kind: fc.constant('settle' as const),
    marker: fc.constantFrom('turn-1:0', 'turn-2:0', 'turn-3:1'),
    appends: fc.dictionary(fc.constantFrom('history.md', 'characters/lia/knowledge.md', 'proposals.md', 'manifest.json'), fc.constantFrom('x', 'y\n'), { maxKeys: 2 }),
  }),
  fc.record({ kind: fc.constant('edit' as const), path: fc.constantFrom(...PATHS), content: fc.option(fc.constantFrom(...TEXTS), { nil: null }) }),
);

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    const value = (await promise) as { revision?: number; applied?: boolean };
    return { ok: true, revision: value.revision, applied: value.applied };
  } catch (error) {
    return { error: (error as { code?: string }).code };
  }
}

let base: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ root: base, cleanup } = await tempRoot()));
afterAll(() => cleanup());

describe('model test: commit / settle / external edit against the in-memory reference', () => {
  it(`matches MemoryTreeStore in ${RUNS} random runs (stale commits write nothing, edits never lost)`, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
        const root = join(base, `run-${run++}`);
        const { trees } = fsStorage({ root });
        const model = new MemoryTreeStore();
        await trees.create('s', { 'history.md': '# H\n' });
        await model.create('s', { 'history.md': '# H\n' });
        try {
          for (const op of ops) {
            const current = (await model.read('s')).revision;
            if (op.kind === 'commit') {
              const change = { baseRevision: op.stale ? current - 1 : current, writes: op.writes };
              expect(await outcome(trees.commit('s', change))).toEqual(await outcome(model.commit('s', change)));
            } else if (op.kind === 'settle') {
              expect(await outcome(trees.settle('s', op))).toEqual(await outcome(model.settle('s', op)));
            } else {
              // A player's editor writes the disk directly; the model sees it as a commit of its own.
              const file = join(root, 'story-workspaces', 's', op.path);
              const before = (await model.read('s')).files[op.path];
              if (op.content === null) await unlink(file).catch(() => undefined);
              else {
                await mkdir(dirname(file), { recursive: true });
                await writeFile(file, op.content);
              }
              if (before !== op.content && !(before === undefined && op.content === null)) {
                await model.commit('s', { baseRevision: current, writes: { [op.path]: op.content } });
              }
            }
            expect(await trees.read('s')).toEqual(await model.read('s'));
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
