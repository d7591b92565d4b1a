import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { mapBounded } from '../src/pipeline/limiter.js';

describe('mapBounded (bounded same-stage work, Promise + AbortSignal)', () => {
  it('keeps at most maxParallel in flight, keeps order and settles each item alone', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapBounded([1, 2, 3, 4, 5], 2, new AbortController().signal, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (n === 3) throw new Error('three');
      return n * 10;
    });
    expect(peak).toBe(2);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 20, 'three', 40, 50]);
  });

  it('an abort interrupts: in-flight items see their signal abort, no new item starts, it rejects with the reason', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const aborted: number[] = [];
    const reason = new Error('player cancelled');
    const run = mapBounded([1, 2, 3, 4], 2, controller.signal, (n, _index, signal) => {
      started.push(n);
      return new Promise<number>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted.push(n);
          reject(signal.reason);
        });
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(started).toEqual([1, 2]);
    expect(aborted.sort()).toEqual([1, 2]);
  });

  it('a job declared without a signal parameter is cut by the run signal the same way', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const reason = new Error('player cancelled');
    const run = mapBounded([1, 2, 3, 4], 2, controller.signal, (n) => {
      started.push(n);
      return new Promise<number>(() => {});
    });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(started).toEqual([1, 2]);
  });

  it('an empty list settles at once, and a finished run leaves no listener on the run signal', async () => {
    const controller = new AbortController();
    expect(await mapBounded([], 4, controller.signal, async () => 1)).toEqual([]);
    const results = await mapBounded([1, 2, 3], 8, controller.signal, async (n, _index, signal) => {
      expect(signal.aborted).toBe(false);
      if (n === 2) throw new Error('two');
      return n;
    });
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
