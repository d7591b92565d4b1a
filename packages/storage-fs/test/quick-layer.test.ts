import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newEvent } from '@troupe/kernel/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quickLayer } from '../src/fs/quick-layer.js';
import { countingStorageFs, fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';
import { codeOf, tempRoot } from './helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ root, cleanup } = await tempRoot()));
afterEach(() => cleanup());

describe('quickLayer (small metadata calls on the calling thread)', () => {
  it("answers Node's layer on the calling thread: the effect is there before the promise is awaited", async () => {
    const quick = quickLayer(nodeStorageFs);
    const dir = join(root, 'made');
    const made = quick.mkdir(dir);
    expect(existsSync(dir)).toBe(true);
    await made;
    // The counting layer keeps that (and counts it): benches measure what the stores really do.
    const counting = countingStorageFs();
    const again = quickLayer(counting.fs).mkdir(join(root, 'counted'));
    expect(existsSync(join(root, 'counted'))).toBe(true);
    await again;
    expect(counting.counts().byOperation.mkdir).toBe(1);
  });

  it('errors of a call on the calling thread still arrive as rejections with the Node code', async () => {
    const quick = quickLayer(nodeStorageFs);
    expect(await codeOf(quick.unlink(join(root, 'missing')).then(() => undefined))).toBe('ENOENT');
  });

  it('never bypasses a call a layer replaced: an injected write failure fails the append, and nothing is appended', async () => {
    let writes = 0;
    const failing: StorageFs = {
      ...nodeStorageFs,
      write: async () => {
        writes += 1;
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    };
    // The replaced call is the layer's own, whatever the others do.
    const dir = join(root, 'sessions');
    await fsStorage({ root }).sessions.append('s', [newEvent('test/a', { n: 1 })]);
    const { sessions } = fsStorage({ root, fs: failing });
    expect(await codeOf(sessions.append('s', [newEvent('test/b', { n: 2 })]))).toBe('STORAGE_IO');
    expect(writes).toBeGreaterThan(0);
    const lines = (await readFile(join(dir, 's', 'events.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(['test/a']);
  });

  it('is one layer per layer, and a quick layer is its own', () => {
    const quick = quickLayer(nodeStorageFs);
    expect(quickLayer(nodeStorageFs)).toBe(quick);
    expect(quickLayer(quick)).toBe(quick);
    // A layer of only its own calls (a fault injector, an in-memory disk) is used as it is.
    const own: StorageFs = Object.fromEntries(Object.entries(nodeStorageFs).map(([name, call]) => [name, (...args: unknown[]) => (call as (...a: unknown[]) => unknown)(...args)])) as unknown as StorageFs;
    expect(quickLayer(own)).toBe(own);
  });
});
