import { ManualClock } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { OfflineModelError, offlineModel } from '../src/index.js';
import { request } from './helpers.js';

function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('simulated latency', () => {
  it('waits the fixed latency on the injected clock', async () => {
    const clock = new ManualClock();
    const model = offlineModel({ latencyMs: 500, clock });
    const call = track(model.generate(request('actor', [{ role: 'user', content: 'hi' }])));
    await clock.advance(499);
    expect(call.settled).toBe(false);
    await clock.advance(1);
    expect(call.settled).toBe(true);
    expect(call.error).toBeUndefined();
  });

  it('draws jitter deterministically from the seed, within [latency, latency + jitter]', async () => {
    const delays: number[] = [];
    for (const attempt of [1, 2]) {
      const clock = new ManualClock();
      const model = offlineModel({ latencyMs: 100, jitterMs: 1000, seed: 7, clock });
      const call = track(model.generate(request('actor', [{ role: 'user', content: 'same input' }])));
      let waited = 0;
      while (!call.settled && waited <= 1100) {
        await clock.advance(1);
        waited++;
      }
      expect(call.settled, `attempt ${attempt}`).toBe(true);
      delays.push(waited);
    }
    expect(delays[0]).toBe(delays[1]);
    expect(delays[0]).toBeGreaterThanOrEqual(100);
    expect(delays[0]).toBeLessThanOrEqual(1100);
  });

  it('rejects with the abort reason during latency and leaves no timer behind', async () => {
    const clock = new ManualClock();
    const model = offlineModel({ latencyMs: 1000, clock });
    const controller = new AbortController();
    const reason = new Error('player pressed stop');
    const call = model.generate({ ...request('actor', [{ role: 'user', content: 'hi' }]), signal: controller.signal });
    await clock.advance(300);
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects a stream aborted during latency without yielding anything', async () => {
    const clock = new ManualClock();
    const model = offlineModel({ latencyMs: 1000, clock });
    const controller = new AbortController();
    const reason = new Error('stop');
    const parts: unknown[] = [];
    const consume = (async () => {
      for await (const part of model.stream!({ ...request('actor', [{ role: 'user', content: 'hi' }]), signal: controller.signal })) parts.push(part);
    })();
    await clock.advance(10);
    controller.abort(reason);
    await expect(consume).rejects.toBe(reason);
    expect(parts).toEqual([]);
  });

  it('rejects an already-aborted signal at once', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(offlineModel().generate({ ...request('actor', []), signal: controller.signal })).rejects.toThrow('gone');
  });

  it('rejects invalid options with OFFLINE_OPTIONS_INVALID', () => {
    expect(() => offlineModel({ latencyMs: -1 })).toThrow(OfflineModelError);
    try {
      offlineModel({ jitterMs: 1.5 });
    } catch (error) {
      expect((error as OfflineModelError).code).toBe('OFFLINE_OPTIONS_INVALID');
    }
  });
});
