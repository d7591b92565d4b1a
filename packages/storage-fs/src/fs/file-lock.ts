import { dirname, join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import { abortReason } from '@troupe/kernel/util';
import { writeFully } from './atomic-write.js';
import { DEFAULT_LEASE_MS, isLockStale, leaseExpiresAt, markHeld, newLockOwner, readLock } from './lock-owner.js';
import { CREATE_EXCLUSIVE, errorCode, type StorageFs } from './storage-fs.js';
import { tempName } from './temp-names.js';
import { lstatQuick } from './stat-now.js';
import { quickLayer } from './quick-layer.js';

/** How long a lock file whose owner cannot be read (someone else's garbage) is waited on. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;
/** How long a missing lock is re-read before it counts as lost: a breaker may hold it aside briefly. */
const ASIDE_GRACE_MS = 100;

/** Options for {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long waiting for a live holder (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * How long the lock stays valid without renewal (default 20 s). The holder renews it every
   * third of this while `work` runs; a process on another host may break it once it lapsed.
   */
  readonly leaseMs?: number;
  /** Called when the lock's directory does not exist (e.g. the tree was deleted). */
  readonly onMissing: () => Error;
  /** Cancels the wait for a live holder: rejects with the signal's reason, nothing held. */
  readonly signal?: AbortSignal;
  /**
   * Longest pause between two attempts (default 16 ms, right for commits that take a few ms);
   * locks held for seconds (a whole turn) poll less often.
   */
  readonly maxPauseMs?: number;
}

/** The lock as seen by the critical section. */
export interface HeldLock {
  /**
   * Checks the lock's name still names this holder's lock file (its inode, which the holder keeps
   * open, so no other file can have it; one `lstat`). Call right before a
   * point of no return (a commit point, an append), so a holder whose lock was broken or stolen
   * stops instead of writing beside the new holder.
   * @param what - what is about to happen, for the error message
   * @throws {KernelStorageError} STORAGE_IO when the lock is no longer ours
   */
  assertHeld(what: string): Promise<void>;
}

/**
 * Runs `work` holding a cross-process lock: a file published with link(2) holding
 * `{pid, host, at, nonce, start, leaseMs}`.
 *
 * When a lock may be broken:
 * - on this host, when its owner is certainly dead (no such pid, or the pid was reused by a
 *   process that started later) — at once, whatever the lease says;
 * - from another host, when its lease expired: the holder renews the lease by setting the mtime
 *   of its own lock inode (futimes on the descriptor it published, never by name) every third of
 *   `leaseMs`, so a lock whose mtime is older than its lease has no live holder (assuming the
 *   hosts' clocks agree to within the lease);
 * - a file that is not a lock at all, after it stayed unchanged for 5 s.
 * Breaking and releasing move the file aside and check it is the one they meant before deleting
 * it, so neither ever removes somebody else's fresh lock; a holder whose lock was broken finds
 * another file (or none) at the lock's name at its next {@link HeldLock.assertHeld} and stops
 * before writing. The holder identifies its lock by inode: it keeps the lock file open until it
 * has released it, so that inode cannot belong to any other file meanwhile.
 *
 * Reusable for any cross-process critical section over a folder the caller owns (one lock file
 * per resource).
 * @param layer - file-system layer (its calls that have a synchronous form run on the calling thread, see `quickLayer`)
 * @param lockPath - the lock file
 * @param options - timeout, lease and the missing-directory error
 * @param work - the critical section; gets {@link HeldLock} to re-check ownership
 * @returns what `work` returns
 * @throws {KernelStorageError} STORAGE_IO when the lock stays held past the timeout (the message
 * names the lock file, its holder, and what to do), or when the lock was lost before a point of
 * no return (from `assertHeld`)
 */
export async function withFileLock<T>(layer: StorageFs, lockPath: string, options: FileLockOptions, work: (lock: HeldLock) => Promise<T>): Promise<T> {
  const fs = quickLayer(layer);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const owner = newLockOwner(leaseMs);
  const body = Buffer.from(JSON.stringify(owner));
  markHeld(owner.nonce, true);
  let held: { fd: number; inode: string; tempGone: Promise<void> } | undefined;
  let renewal: NodeJS.Timeout | undefined;
  try {
    held = await acquire(fs, lockPath, options, body, owner.nonce);
    const { fd, inode } = held;
    // Renew on our own inode: if the lock was broken and re-taken, the new holder's file is untouched.
    renewal = setInterval(() => void fs.futimes(fd, Date.now()).catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
    renewal.unref();
    return await work({ assertHeld: (what) => assertHeld(fs, lockPath, inode, what) });
  } finally {
    clearInterval(renewal);
    if (held) {
      await held.tempGone;
      // Released while the descriptor is still open: our inode cannot be reused by another file
      // meanwhile, so "the file at the lock's name has our inode" means it is our lock.
      // Best effort: a lock we fail to remove names our pid and an unheld nonce, so it is stale.
      await release(fs, lockPath, held.inode).catch(() => undefined);
      await fs.close(held.fd).catch(() => undefined);
    }
    markHeld(owner.nonce, false);
  }
}

/** The inode part of a stat signature (`ino:…`), or undefined when there is no such file. */
async function inodeAt(fs: StorageFs, path: string): Promise<string | undefined> {
  return (await lstatQuick(fs, path))?.signature.split(':')[0];
}

/**
 * @returns a descriptor of the published lock file (kept open to renew the lease, and so that its
 * inode, which identifies our lock from then on, stays ours), that inode, and the removal of the
 * temp name it was published from (still running)
 */
async function acquire(fs: StorageFs, lockPath: string, options: FileLockOptions, body: Buffer, nonce: string): Promise<{ fd: number; inode: string; tempGone: Promise<void> }> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    // Write the owner into a temp, then link() it to the lock name: the lock appears complete
    // or not at all, so a holder killed mid-acquire never leaves an ownerless lock behind.
    const temp = join(dirname(lockPath), tempName());
    let fd: number | undefined;
    let published = false;
    let inode: string | undefined;
    let tempGone: Promise<void> = Promise.resolve();
    try {
      fd = await fs.open(temp, CREATE_EXCLUSIVE, 0o644);
      await writeFully(fs, fd, body, 0);
      await fs.link(temp, lockPath);
      published = true;
      // The temp is a second name of the lock's inode (nobody else ever has it).
      inode = await inodeAt(fs, temp).catch(() => undefined);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        // The folder is gone, or a sweeper in this process removed our temp: retry only in the latter case.
        if ((await lstatQuick(fs, dirname(lockPath)))?.kind !== 'directory') throw options.onMissing();
      } else if (code !== 'EEXIST') {
        throw new KernelStorageError('STORAGE_IO', `Could not lock ${lockPath} (${code})`, { cause: error });
      }
    } finally {
      if (!published && fd !== undefined) await fs.close(fd).catch(() => undefined);
      // Once the lock is ours, its temp name goes while the caller's work already runs (the
      // lock is released only after it is gone); otherwise right away.
      const unlinked = fs.unlink(temp).catch(() => undefined);
      if (!(published && inode !== undefined)) await unlinked;
      else tempGone = unlinked;
    }
    if (published && fd !== undefined) {
      if (inode !== undefined) return { fd, inode, tempGone };
      // Could not stat our own new file: give the lock back (it is the one carrying our nonce) and stop.
      await removeIf(fs, lockPath, async (aside) => {
        const moved = await readLock(fs, aside);
        return moved !== 'missing' && moved.owner !== 'garbage' && moved.owner.nonce === nonce;
      }).catch(() => undefined);
      await fs.close(fd).catch(() => undefined);
      throw new KernelStorageError('STORAGE_IO', `Could not lock ${lockPath} (its new lock file cannot be stat'ed)`);
    }
    if (await breakIfStale(fs, lockPath)) continue;
    if (Date.now() > deadline) throw await heldTooLong(fs, lockPath, options.timeoutMs ?? 30_000);
    // Back off 1–16 ms with jitter: commits take a few ms, so this keeps 8 writers fair.
    await sleep(Math.min(options.maxPauseMs ?? 16, 1 + attempt) * (0.5 + Math.random()), options.signal);
  }
}

/** @returns true when the caller should retry at once (lock gone or broken) */
async function breakIfStale(fs: StorageFs, lockPath: string): Promise<boolean> {
  const seen = await readLock(fs, lockPath);
  if (seen === 'missing') return true;
  const stale = seen.owner === 'garbage' ? await unreadableForTooLong(fs, lockPath) : isLockStale(seen.owner, seen.mtimeMs, Date.now());
  if (!stale) return false;
  // Another waiter may have broken the same stale lock and published its own since we read it:
  // remove only if what we moved aside is byte for byte the stale lock we judged.
  await removeIf(fs, lockPath, async (aside) => {
    const moved = await readLock(fs, aside);
    return moved !== 'missing' && moved.bytes.equals(seen.bytes);
  });
  return true;
}

async function release(fs: StorageFs, lockPath: string, inode: string | undefined): Promise<void> {
  const deadline = Date.now() + ASIDE_GRACE_MS;
  // 'gone' may mean a breaker holds our lock aside for a moment and is about to put it back.
  while ((await removeIf(fs, lockPath, async (aside) => inode !== undefined && (await inodeAt(fs, aside)) === inode)) === 'gone' && Date.now() < deadline) await sleep(2);
}

/**
 * Renames the lock aside (atomic: exactly one mover gets a given file), then deletes it if it is
 * the expected one; otherwise links it back, exclusively, so it never replaces a newer lock.
 * @returns 'removed', 'restored' (not the expected lock), 'lost' (not expected, and a newer lock
 * took its place: its owner finds another file there at its next check), or 'gone' (nothing to move)
 */
async function removeIf(fs: StorageFs, lockPath: string, expected: (aside: string) => Promise<boolean>): Promise<'removed' | 'restored' | 'lost' | 'gone'> {
  const aside = join(dirname(lockPath), tempName());
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return 'gone';
  }
  try {
    if (await expected(aside)) return 'removed';
    try {
      await fs.link(aside, lockPath);
      return 'restored';
    } catch {
      return 'lost';
    }
  } finally {
    await fs.unlink(aside).catch(() => undefined);
  }
}

async function assertHeld(fs: StorageFs, lockPath: string, inode: string, what: string): Promise<void> {
  const deadline = Date.now() + ASIDE_GRACE_MS;
  for (;;) {
    // One lstat: the lock's name still points at our inode (held open by us, so never reused).
    const current = await inodeAt(fs, lockPath);
    if (current === inode) return;
    if (current !== undefined || Date.now() >= deadline) break;
    await sleep(2);
  }
  throw new KernelStorageError(
    'STORAGE_IO',
    `Lost the lock ${lockPath} (another process broke or removed it) before ${what}; stopped so two writers never commit at once. Try again.`,
  );
}

/** The error after a bounded wait: which file, who holds it, when it expires, what to do. */
async function heldTooLong(fs: StorageFs, lockPath: string, waitedMs: number): Promise<KernelStorageError> {
  const seen = await readLock(fs, lockPath).catch(() => 'missing' as const);
  let holder = 'an unreadable lock file';
  if (seen !== 'missing' && seen.owner !== 'garbage') {
    const left = Math.max(0, Math.ceil((leaseExpiresAt(seen.owner, seen.mtimeMs) - Date.now()) / 1000));
    holder = `process ${seen.owner.pid} on host "${seen.owner.host}" (its lease, renewed while it works, runs out in ${left} s)`;
  }
  return new KernelStorageError(
    'STORAGE_IO',
    `Gave up after ${Math.round(waitedMs / 1000)} s waiting for the lock ${lockPath}, held by ${holder}. ` +
      'Try again in a moment; if no Troupe process uses this data folder any more, delete that lock file.',
  );
}

const firstSeenUnreadable = new Map<string, number>();

async function unreadableForTooLong(fs: StorageFs, lockPath: string): Promise<boolean> {
  const stat = await lstatQuick(fs, lockPath);
  if (!stat) return false; // gone: the caller retries, nothing to break
  const key = `${lockPath}\u0000${stat.signature}`;
  const first = firstSeenUnreadable.get(key) ?? Date.now();
  firstSeenUnreadable.set(key, first);
  if (Date.now() - first < UNREADABLE_LOCK_GRACE_MS) return false;
  firstSeenUnreadable.delete(key);
  return true;
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller's loop then throws its reason). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
