import type { DirEntry, EntryStat, StorageFs } from './storage-fs.js';

// The stat checks of every read (is the workspace unchanged? has the log grown?) are many tiny
// calls: on the calling thread each takes a few µs, through libuv's thread pool tens. They run
// synchronously while they stay fast; on a file system where they are not (a network share, a
// cold disk), that layer gets the asynchronous calls for a while so the event loop never waits.

/**
 * Stat work answered synchronously for longer than this, in one go, is slow: a network share's
 * round trips add up to it over one workspace's files, while a local disk takes well under a
 * millisecond — unless the process was descheduled meanwhile on a busy machine, which is why one
 * slow batch alone does not mark the layer slow (see {@link SLOW_STRIKES}).
 */
export const SLOW_SYNC_MS = 50;
/**
 * Slow batches in a row that mark a layer slow. A slow file system is slow on every batch; a busy
 * machine stalls one batch now and then, and marking the layer slow for that would send a minute
 * of calls through the thread pool (a round trip each) just when CPU is short.
 */
export const SLOW_STRIKES = 2;
/** How long a layer marked slow gets the asynchronous calls before synchronous ones are tried again. */
const SLOW_FOR_MS = 60_000;

const slowUntil = new WeakMap<StorageFs, number>();
/** Slow batches in a row so far, per layer (a fast batch starts over). */
const strikes = new WeakMap<StorageFs, number>();

/**
 * Thrown by {@link quickStats}' calls when a layer's "synchronous" call returned a promise (a
 * wrapper that made every method async): the caller redoes the work with the asynchronous calls.
 */
export class NotSynchronous extends Error {}

/** The synchronous stat calls of a layer (see {@link quickStats}). */
export interface QuickStats {
  lstat(path: string): EntryStat | undefined;
  readdir(path: string): DirEntry[];
}

/**
 * The synchronous stat calls of a layer, when it has them and has not been slow lately.
 * @param fs - file-system layer
 * @returns `lstatNow` / `readdirNow`, or undefined to use the asynchronous calls
 */
export function quickStats(fs: StorageFs): QuickStats | undefined {
  const { lstatNow, readdirNow } = fs;
  if (!lstatNow || !readdirNow) return undefined;
  const until = slowUntil.get(fs);
  if (until !== undefined && Date.now() < until) return undefined;
  const checked = <T>(result: T): T => {
    if (typeof (result as { then?: unknown } | undefined)?.then !== 'function') return result;
    slowUntil.set(fs, Number.POSITIVE_INFINITY);
    (result as unknown as Promise<unknown>).catch(() => undefined);
    throw new NotSynchronous();
  };
  return { lstat: (path) => checked(lstatNow.call(fs, path)), readdir: (path) => checked(readdirNow.call(fs, path)) };
}

/**
 * The layer's synchronous small-file read, when it has one and has not been slow lately (see
 * {@link quickStats}).
 * @param fs - file-system layer
 * @returns `readNow`, or undefined to read asynchronously
 */
export function quickRead(fs: StorageFs): ((path: string, start: number, end: number | undefined) => Buffer | undefined) | undefined {
  const { readNow } = fs;
  if (!readNow) return undefined;
  const until = slowUntil.get(fs);
  if (until !== undefined && Date.now() < until) return undefined;
  return (path, start, end) => {
    const result = readNow.call(fs, path, start, end);
    if (typeof (result as { then?: unknown } | undefined)?.then !== 'function') return result;
    slowUntil.set(fs, Number.POSITIVE_INFINITY);
    (result as unknown as Promise<unknown>).catch(() => undefined);
    throw new NotSynchronous();
  };
}

/**
 * Whether a layer may answer calls on the calling thread now (it has not been slow lately).
 * @param fs - file-system layer
 * @returns false while the layer is marked slow
 */
export function syncCallsAllowed(fs: StorageFs): boolean {
  const until = slowUntil.get(fs);
  return until === undefined || Date.now() >= until;
}

/**
 * Notes how long a batch of synchronous stat calls took; {@link SLOW_STRIKES} too long in a row mark the layer slow.
 * @param fs - file-system layer
 * @param startedAt - `performance.now()` before the batch
 */
export function noteSyncStats(fs: StorageFs, startedAt: number): void {
  if (performance.now() - startedAt <= SLOW_SYNC_MS) {
    if (strikes.has(fs)) strikes.delete(fs);
    return;
  }
  const count = (strikes.get(fs) ?? 0) + 1;
  if (count < SLOW_STRIKES) {
    strikes.set(fs, count);
    return;
  }
  strikes.delete(fs);
  slowUntil.set(fs, Date.now() + SLOW_FOR_MS);
}

/**
 * `lstat` on the calling thread when that is fast here (see {@link quickStats}), else the
 * asynchronous call.
 * @param fs - file-system layer
 * @param path - any path
 * @returns what is there, or `undefined` when the path does not exist
 */
export async function lstatQuick(fs: StorageFs, path: string): Promise<EntryStat | undefined> {
  const quick = quickStats(fs);
  if (!quick) return fs.lstat(path);
  const startedAt = performance.now();
  try {
    return quick.lstat(path);
  } catch (error) {
    if (error instanceof NotSynchronous) return fs.lstat(path);
    throw error;
  } finally {
    noteSyncStats(fs, startedAt);
  }
}
