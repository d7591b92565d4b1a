import { describe, expect, it } from 'vitest';
import { lstatQuick, quickStats, SLOW_STRIKES, SLOW_SYNC_MS } from '../src/fs/stat-now.js';
import { nodeStorageFs, type StorageFs } from '../src/index.js';

/** A layer whose next `stalls` synchronous stats each hold the thread past the slow threshold. */
function stallingLayer(): { fs: StorageFs; stallNext: (count: number) => void } {
  let stalls = 0;
  const lstatNow = nodeStorageFs.lstatNow as NonNullable<StorageFs['lstatNow']>;
  const fs: StorageFs = {
    ...nodeStorageFs,
    lstatNow: (path) => {
      if (stalls > 0) {
        stalls -= 1;
        const until = performance.now() + SLOW_SYNC_MS + 10;
        while (performance.now() < until) {
          // Busy: what a descheduled process or a network round trip looks like from here.
        }
      }
      return lstatNow(path);
    },
  };
  return { fs, stallNext: (count) => (stalls = count) };
}

describe('a layer found slow gets the asynchronous calls', () => {
  it('not for one stalled batch (a busy machine), only for slow batches in a row (a slow disk)', async () => {
    const { fs, stallNext } = stallingLayer();
    const stat = () => lstatQuick(fs, import.meta.dirname);
    stallNext(1);
    await stat();
    expect(quickStats(fs)).toBeDefined();
    // A fast batch starts the count over: stalls apart never add up.
    for (let round = 0; round < 3; round++) {
      await stat();
      stallNext(1);
      await stat();
      expect(quickStats(fs)).toBeDefined();
    }
    await stat();
    stallNext(SLOW_STRIKES);
    for (let call = 0; call < SLOW_STRIKES; call++) await stat();
    expect(quickStats(fs)).toBeUndefined();
    // Meanwhile every stat still answers, through the thread pool.
    expect((await stat())?.kind).toBe('directory');
  });
});
