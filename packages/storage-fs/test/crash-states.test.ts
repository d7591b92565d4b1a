import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsStorage } from '../src/index.js';
import { crashingFs, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

const BEFORE = { 'manifest.json': '{"name":"雾港"}', 'outline.md': 'old outline', 'notes.md': 'old notes' };
const CHANGE = { 'outline.md': 'new outline', 'notes.md': null, 'characters/lia/persona.md': 'new persona' };

async function temps(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.troupe-tmp-') || entry.name === 'intent.json') found.push(entry.name);
    else if (entry.isDirectory()) found.push(...(await temps(join(dir, entry.name))));
  }
  return found;
}

describe('multi-file commits are all-or-nothing across a crash at any operation', () => {
  it('every crash point reopens to exactly the old or exactly the new tree', async () => {
    const probeRoot = join(root, 'probe');
    await fsStorage({ root: probeRoot }).trees.create('s', BEFORE);
    const probe = crashingFs(Number.POSITIVE_INFINITY);
    const expected = (await fsStorage({ root: probeRoot, fs: probe.fs }).trees.commit('s', { baseRevision: 1, writes: CHANGE })).files;
    const steps = probe.ops.length;
    const outcomes = { old: 0, new: 0 };
    for (let crashAt = 0; crashAt <= steps; crashAt++) {
      const caseRoot = join(root, `c${crashAt}`);
      await fsStorage({ root: caseRoot }).trees.create('s', BEFORE);
      const crashing = crashingFs(crashAt);
      await fsStorage({ root: caseRoot, fs: crashing.fs }).trees.commit('s', { baseRevision: 1, writes: CHANGE }).catch(() => undefined);
      // The dead process's lock names our pid with a nonce nobody holds: broken at once.
      const snapshot = await fsStorage({ root: caseRoot }).trees.read('s');
      if (snapshot.revision === 1) {
        expect(snapshot.files, `crash at op ${crashAt}`).toEqual({ ...BEFORE, 'manifest.json': expect.any(String) });
        expect(JSON.parse(snapshot.files['manifest.json'] ?? '')).toEqual({ name: '雾港', revision: 1 });
        outcomes.old += 1;
      } else {
        expect(snapshot.revision, `crash at op ${crashAt}`).toBe(2);
        expect(snapshot.files, `crash at op ${crashAt}`).toEqual(expected);
        outcomes.new += 1;
      }
      expect(await temps(join(caseRoot, 'story-workspaces', 's'))).toEqual([]);
    }
    // Both sides of the commit point were exercised.
    expect(outcomes.old).toBeGreaterThan(3);
    expect(outcomes.new).toBeGreaterThan(3);
  });
});
