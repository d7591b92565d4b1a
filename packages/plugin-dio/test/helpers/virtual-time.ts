import type { ManualClock } from '@troupe/kernel/testing';
import type { FetchLike } from '../../src/index.js';
import type { LoopbackServer } from './loopback-server.js';

/** Real `fetch` that knows which of its requests are still waiting for the network. */
export interface TrackedFetch {
  readonly fetch: FetchLike;
  /** Ids (`x-test-request-id`) of requests whose answer has not fully arrived. */
  readonly pending: ReadonlySet<string>;
}

/**
 * Wraps the global fetch: tags each request with an `x-test-request-id` header and buffers the
 * whole body before handing the response over, so "pending" covers all real network I/O.
 * @returns the fetch and its pending set
 */
export function trackedFetch(): TrackedFetch {
  const pending = new Set<string>();
  let next = 0;
  const fetchLike: FetchLike = async (url, init) => {
    const id = `req-${next++}`;
    pending.add(id);
    try {
      const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-test-request-id': id } });
      const body = await response.arrayBuffer();
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    } finally {
      pending.delete(id);
    }
  };
  return { fetch: fetchLike, pending };
}

/**
 * Runs `promise` to completion in virtual time over a real loopback server: the clock moves only
 * while every outstanding request is one the server decided to hang, so a slow machine can
 * never turn a real answer into a timeout, and timeouts fire at exact virtual times.
 * @param clock - the client's clock
 * @param server - the loopback server (knows which requests it hangs)
 * @param tracked - the client's fetch
 * @param promise - the call under test
 * @returns its outcome (value, or the rejection as `{ error }`)
 */
export async function settleInVirtualTime<T>(clock: ManualClock, server: LoopbackServer, tracked: TrackedFetch, promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  let outcome: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => {
      outcome = { value };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  for (let step = 0; outcome === undefined; step++) {
    if (step > 200_000) throw new Error('settleInVirtualTime: the call never settled');
    const waitingOnNetwork = [...tracked.pending].some((id) => !server.hung.has(id));
    if (waitingOnNetwork) await new Promise((resolve) => setTimeout(resolve, 2));
    else await clock.advance(10);
  }
  return outcome;
}
