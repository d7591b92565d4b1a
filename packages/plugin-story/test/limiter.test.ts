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

  it('jobs that end on abort themselves: the run listens to nothing, and the abort ends it with the reason, no new item started', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const reason = new Error('player cancelled');
    const run = mapBounded(
      [1, 2, 3, 4],
      2,
      controller.signal,
      (n) => {
        started.push(n);
        return new Promise<number>((_resolve, reject) => {
          // Stands for a stage call's deadline group, which rejects its calls on the turn's abort.
          if (n > 1) controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
          else _resolve(10);
        });
      },
      { jobsEndOnAbort: true },
    );
    await new Promise((resolve) => setImmediate(resolve));
    // Item 1 answered, item 3 took its slot; only the two pending jobs listen.
    expect(started).toEqual([1, 2, 3]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(2);
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(started).toEqual([1, 2, 3]);
    const done = await mapBounded([1, 2], 2, controller.signal, async (n) => n, { jobsEndOnAbort: true }).catch((error: unknown) => error);
    expect(done).toBe(reason);
    const fresh = new AbortController();
    expect((await mapBounded([1, 2, 3], 2, fresh.signal, async (n) => n * 2, { jobsEndOnAbort: true })).map((r) => r.status === 'fulfilled' && r.value)).toEqual([2, 4, 6]);
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
