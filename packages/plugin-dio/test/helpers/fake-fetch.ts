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
}

/**
 * @param now - reads the virtual clock
 * @param answer - the JSON body and status for the n-th request (0-based)
 */
export function fakeTransport(now: () => number, answer: (index: number, url: string) => { status: number; json: unknown }): FakeTransport {
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const times: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    const index = started++;
    times.push(now());
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (init.signal?.aborted) throw init.signal.reason;
      await Promise.resolve();
      const { status, json } = answer(index, url);
      return new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json' } });
    } finally {
      inFlight -= 1;
    }
  };
  return { fetch, started: () => started, maxInFlight: () => maxInFlight, times };
}
