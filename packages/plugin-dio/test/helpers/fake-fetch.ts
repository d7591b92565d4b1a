import type { Clock } from '@troupe/kernel';
import type { FetchLike } from '../../src/index.js';

/** An in-process transport for virtual-time tests: counts requests and concurrent requests. */
export interface FakeTransport {
  readonly fetch: FetchLike;
  /** Requests started. */
  readonly started: () => number;
  /** Most requests in flight at once. */
  readonly maxInFlight: () => number;
  /** Times (clock ms) at which requests started. */
  readonly times: number[];
  /** Times (clock ms) at which requests answered (same order as `times`). */
  readonly answeredAt: number[];
}

/** Options of {@link fakeTransport}. */
export interface FakeTransportOptions {
  /**
   * How long (virtual ms) the n-th request takes before it answers; 0 = within a microtask.
   * The wait sleeps on `clock` and honours the request's signal, like a slow server.
   */
  readonly delayMs?: (index: number) => number;
}

/**
 * @param clock - the virtual clock (reads time; sleeps for slow answers)
 * @param answer - the JSON body, status and extra headers (e.g. `retry-after`) for the n-th request (0-based)
 * @param options - per-request answer delays
 */
export function fakeTransport(
  clock: Pick<Clock, 'now' | 'sleep'>,
  answer: (index: number, url: string) => { status: number; json: unknown; headers?: Record<string, string> },
  options: FakeTransportOptions = {},
): FakeTransport {
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const times: number[] = [];
  const answeredAt: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    const index = started++;
    times.push(clock.now());
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (init.signal?.aborted) throw init.signal.reason;
      const delay = options.delayMs?.(index) ?? 0;
      if (delay > 0) await clock.sleep(delay, init.signal ?? undefined);
      else await Promise.resolve();
      const { status, json, headers } = answer(index, url);
      answeredAt[index] = clock.now();
      return new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json', ...headers } });
    } finally {
      inFlight -= 1;
    }
  };
  return { fetch, started: () => started, maxInFlight: () => maxInFlight, times, answeredAt };
}
