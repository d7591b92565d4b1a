/**
 * How many promise jobs work may take and still count as "already settled": an async function
 * that awaits nothing (or only settled promises) settles within a few jobs.
 */
export const SETTLE_PROBE_JOBS = 4;

/**
 * The outcome of `pending` when it settles within `jobs` promise jobs, else `undefined`. Work
 * that settles that fast cannot time out or outlive its caller any more, so it needs no timer,
 * listener or Effect fiber; only work still pending after the probe gets those. Rejects with the
 * work's failure when it failed that quickly.
 * @param pending - work already started
 * @param jobs - how many promise jobs to wait at most
 * @returns `{ value }`, or `undefined` while it is still running
 */
export async function settledSoon<T>(pending: PromiseLike<T>, jobs = SETTLE_PROBE_JOBS): Promise<{ readonly value: T } | undefined> {
  let outcome: { value: T } | { error: unknown } | undefined;
  pending.then(
    (value) => {
      outcome = { value };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  for (let job = 0; job < jobs && outcome === undefined; job++) await undefined;
  if (outcome === undefined) return undefined;
  if ('error' in outcome) throw outcome.error;
  return outcome;
}
