import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { codeOf, crashingFs, tempRoot } from './helpers.js';

const STRESS = process.env.STRESS === '1';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const TARGETS = ['history.md', 'characters/lia/knowledge.md', 'proposals.md'];
const settlement = (turn: number) => ({ marker: `turn-${turn}:0`, appends: Object.fromEntries(TARGETS.map((path) => [path, `turn ${turn} → ${path}`])) });

function markerCount(text: string, marker: string): number {
  return text.split('\n').filter((line) => line === `<!-- troupe:settle ${marker} -->`).length;
}

describe('settle: every marker exactly once', () => {
  it('retried 1–5 times sequentially: only the first applies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }), async (retries) => {
        const { trees } = fsStorage({ root: join(root, `r${Math.random().toString(16).slice(2)}`) });
        await trees.create('s', {});
        for (const [turn, times] of retries.entries()) {
          const results = [];
          for (let attempt = 0; attempt < times; attempt++) results.push((await trees.settle('s', settlement(turn))).applied);
          expect(results).toEqual([true, ...Array(times - 1).fill(false)]);
        }
        const snapshot = await trees.read('s');
        expect(snapshot.revision).toBe(1 + retries.length);
        for (const path of TARGETS) for (let turn = 0; turn < retries.length; turn++) expect(markerCount(snapshot.files[path] ?? '', `turn-${turn}:0`)).toBe(1);
      }),
      { numRuns: STRESS ? 200 : 20 },
    );
  });

  it(`10 first-time settles of a fresh marker raced across two store instances: exactly one applies (${STRESS ? 50 : 8} markers)`, async () => {
    const first = fsStorage({ root }).trees;
    const second = fsStorage({ root }).trees; // only the file lock serialises the two instances
    await first.create('s', { 'history.md': '# H\n' });
    const markers = STRESS ? 50 : 8;
    for (let turn = 0; turn < markers; turn++) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? second : first).settle('s', settlement(turn))));
      expect(results.filter((result) => result.applied)).toEqual([{ applied: true, revision: 2 + turn }]);
      expect(results.every((result) => result.revision === 2 + turn)).toBe(true);
      const snapshot = await (turn % 2 ? first : second).read('s');
      for (const path of TARGETS) expect(markerCount(snapshot.files[path] ?? '', `turn-${turn}:0`), path).toBe(1);
    }
    const text = await readFile(join(root, 'story-workspaces', 's', 'history.md'), 'utf8');
    for (let turn = 0; turn < markers; turn++) expect(markerCount(text, `turn-${turn}:0`)).toBe(1);
    expect(text.match(/<!-- troupe:settle /g)).toHaveLength(markers);
  });

  it('a settlement that finds its marker after a reopen is a no-op; other content is TREE_SETTLE_CONFLICT', async () => {
    await fsStorage({ root }).trees.create('s', {});
    await fsStorage({ root }).trees.settle('s', settlement(1));
    const reopened = fsStorage({ root }).trees;
    expect(await reopened.settle('s', settlement(1))).toEqual({ applied: false, revision: 2 });
    expect(await codeOf(reopened.settle('s', { marker: 'turn-1:0', appends: { 'history.md': 'different' } }))).toBe('TREE_SETTLE_CONFLICT');
  });

  it('a crash at every step of a 3-file settle: after reopening, each marker is in each file exactly once, no temps', async () => {
    const probe = crashingFs(Number.POSITIVE_INFINITY);
    const probeRoot = join(root, 'probe');
    await fsStorage({ root: probeRoot }).trees.create('s', { 'history.md': '# H\n' });
    await fsStorage({ root: probeRoot, fs: probe.fs }).trees.settle('s', settlement(1));
    const steps = probe.ops.length;
    expect(steps).toBeGreaterThan(20);
    for (let crashAt = 0; crashAt < steps; crashAt++) {
      const caseRoot = join(root, `crash-${crashAt}`);
      await fsStorage({ root: caseRoot }).trees.create('s', { 'history.md': '# H\n' });
      const crashing = crashingFs(crashAt);
      const outcome = await fsStorage({ root: caseRoot, fs: crashing.fs }).trees.settle('s', settlement(1)).catch((error: unknown) => error);
      expect(crashing.crashed() || (outcome as { applied?: boolean }).applied === true, String(outcome)).toBe(true);
      // The simulated process is dead; its lock names our pid with a nonce nobody holds any
      // more, so the next store breaks it at once (no manual cleanup).
      // A new process retries the same settlement, as the turn runner would.
      const { trees } = fsStorage({ root: caseRoot });
      await trees.settle('s', settlement(1));
      const snapshot = await trees.read('s');
      for (const path of TARGETS) {
        expect(markerCount(snapshot.files[path] ?? '', 'turn-1:0'), `crash at op ${crashAt}, ${path}`).toBe(1);
        expect(snapshot.files[path]?.endsWith(`turn 1 → ${path}\n`)).toBe(true);
      }
      expect(snapshot.files['history.md']?.startsWith('# H\n<!-- troupe:settle turn-1:0 -->\n')).toBe(true);
      expect(snapshot.revision).toBe(2);
      const meta = await readdir(join(caseRoot, 'story-workspaces', 's', '.troupe'));
      expect(meta.filter((name) => name.startsWith('.troupe-tmp-') || name === 'intent.json')).toEqual([]);
    }
  });

  it('records markers so a settle never rereads history.md (only its last byte)', async () => {
    const { trees } = fsStorage({ root });
    await trees.create('s', {});
    for (let turn = 0; turn < 30; turn++) await trees.settle('s', { marker: `t${turn}`, appends: { 'history.md': `turn ${turn}` } });
    const paths = new Map<number, string>();
    const bytesRead = new Map<string, number>();
    const counting: StorageFs = {
      ...nodeStorageFs,
      open: async (path, flags, mode) => {
        const fd = await nodeStorageFs.open(path, flags, mode);
        paths.set(fd, path);
        return fd;
      },
      read: async (fd, buffer, offset, length, position) => {
        const count = await nodeStorageFs.read(fd, buffer, offset, length, position);
        const path = paths.get(fd) ?? '?';
        bytesRead.set(path, (bytesRead.get(path) ?? 0) + count);
        return count;
      },
      // Small reads answered on the calling thread count too.
      readNow: (path, start, end) => {
        const bytes = nodeStorageFs.readNow?.(path, start, end);
        if (bytes) bytesRead.set(path, (bytesRead.get(path) ?? 0) + bytes.length);
        return bytes;
      },
    };
    const store = fsStorage({ root, fs: counting }).trees;
    await store.settle('s', { marker: 't-next', appends: { 'history.md': 'next' } });
    const historyPath = join(root, 'story-workspaces', 's', 'history.md');
    expect((await readFile(historyPath, 'utf8')).length).toBeGreaterThan(600);
    expect(bytesRead.get(historyPath)).toBe(1);
    bytesRead.clear();
    await store.settle('s', { marker: 't-next-2', appends: { 'history.md': 'next' } });
    // Warm: the marker file is read incrementally (nothing new), history.md only its last byte.
    expect(bytesRead.get(historyPath)).toBe(1);
    expect(bytesRead.get(join(root, 'story-workspaces', 's', '.troupe', 'settled.jsonl'))).toBeUndefined();
  });
});
