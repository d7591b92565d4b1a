/**
 * How many promise jobs work may take and still count as "already settled": an async function
 * that awaits nothing (or only settled promises) settles within a few jobs.
 */
export const SETTLE_PROBE_JOBS = 4;

const SETTLED = Promise.resolve();

/**
 * The outcome of `pending` when it settles within `jobs` promise jobs, else `undefined`. Work
 * that settles that fast cannot time out or outlive its caller any more, so it needs no timer,
 * listener or Effect fiber; only work still pending after the probe gets those. Rejects with the
 * work's failure when it failed that quickly.
 * @param pending - work already started
 * @param jobs - how many promise jobs to wait at most
 * @returns `{ value }`, or `undefined` while it is still running
 */
export function settledSoon<T>(pending: PromiseLike<T>, jobs = SETTLE_PROBE_JOBS): Promise<{ readonly value: T } | undefined> {
  // A plain promise and one re-queued probe instead of an async function awaiting in a loop: this
  // runs for every committed turn, and each `await` would allocate.
  return new Promise((resolve, reject) => {
    let settled = false;
    let left = jobs;
    pending.then(
      (value) => {
        settled = true;
        resolve({ value });
      },
      (error: unknown) => {
        settled = true;
        reject(error);
      },
    );
    // Promise jobs on a settled promise (cheaper than Node's queueMicrotask, which wraps each callback).
    const probe = () => {
      if (settled) return;
      if (left-- > 0) SETTLED.then(probe);
      else resolve(undefined);
    };
    SETTLED.then(probe);
  });
}
