import { dirname, join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import { writeFully } from './atomic-write.js';
import { isOwnerDead, type LockSnapshot, markHeld, newLockOwner, readLock } from './lock-owner.js';
import { CREATE_EXCLUSIVE, errorCode, type StorageFs } from './storage-fs.js';
import { tempName } from './temp-names.js';

/** How long a lock file whose owner cannot be read (someone else's garbage) is waited on. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;
/** How long a missing lock is re-read before it counts as lost: a breaker may hold it aside briefly. */
const ASIDE_GRACE_MS = 100;

/** Options for {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long waiting for a live holder (default 30 s). */
  readonly timeoutMs?: number;
  /** Called when the lock's directory does not exist (e.g. the tree was deleted). */
  readonly onMissing: () => Error;
}

/** The lock as seen by the critical section. */
export interface HeldLock {
  /**
   * Re-reads the lock file and checks it still carries this holder's nonce. Call right before a
   * point of no return (a commit point, an append), so a holder whose lock was broken or stolen
   * stops instead of writing beside the new holder.
   * @param what - what is about to happen, for the error message
   * @throws {KernelStorageError} STORAGE_IO when the lock is no longer ours
   */
  assertHeld(what: string): Promise<void>;
}

/**
 * Runs `work` holding a cross-process lock: a file published with link(2) holding
 * `{pid, host, at, nonce, start}`. A lock whose owner is certainly dead on this host (no such
 * pid, or the pid was reused by a process that started later) is broken; locks from other hosts
 * are only waited on. Breaking and releasing move the file aside and check it is the one they
 * meant before deleting it, so neither ever removes somebody else's fresh lock.
 * @param fs - file-system layer
 * @param lockPath - the lock file
 * @param options - timeout and the missing-directory error
 * @param work - the critical section; gets {@link HeldLock} to re-check ownership
 * @returns what `work` returns
 * @throws {KernelStorageError} STORAGE_IO when the lock stays held past the timeout, or when the
 * lock was lost before a point of no return (from `assertHeld`)
 */
export async function withFileLock<T>(fs: StorageFs, lockPath: string, options: FileLockOptions, work: (lock: HeldLock) => Promise<T>): Promise<T> {
  const owner = newLockOwner();
  const body = Buffer.from(JSON.stringify(owner));
  const isOurs = (snapshot: LockSnapshot) => snapshot.owner !== 'garbage' && snapshot.owner.nonce === owner.nonce;
  markHeld(owner.nonce, true);
  try {
    await acquire(fs, lockPath, options, body);
    return await work({ assertHeld: (what) => assertHeld(fs, lockPath, isOurs, what) });
  } finally {
    // Best effort: a lock we fail to remove names our pid and an unheld nonce, so it is stale.
    await release(fs, lockPath, isOurs).catch(() => undefined);
    markHeld(owner.nonce, false);
  }
}

async function acquire(fs: StorageFs, lockPath: string, options: FileLockOptions, body: Buffer): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (let attempt = 0; ; attempt++) {
    // Write the owner into a temp, then link() it to the lock name: the lock appears complete
    // or not at all, so a holder killed mid-acquire never leaves an ownerless lock behind.
    const temp = join(dirname(lockPath), tempName());
    let published = false;
    try {
      const fd = await fs.open(temp, CREATE_EXCLUSIVE, 0o644);
      try {
        await writeFully(fs, fd, body, 0);
      } finally {
        await fs.close(fd);
      }
      await fs.link(temp, lockPath);
      published = true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        // The folder is gone, or a sweeper in this process removed our temp: retry only in the latter case.
        if ((await fs.lstat(dirname(lockPath)))?.kind !== 'directory') throw options.onMissing();
      } else if (code !== 'EEXIST') {
        throw new KernelStorageError('STORAGE_IO', `Could not lock ${lockPath} (${code})`, { cause: error });
      }
    } finally {
      await fs.unlink(temp).catch(() => undefined);
    }
    if (published) return;
    if (await breakIfStale(fs, lockPath)) continue;
    if (Date.now() > deadline) {
      throw new KernelStorageError('STORAGE_IO', `${lockPath} is held by another process; gave up waiting. Remove it if no Troupe process is running.`);
    }
    // Back off 1–16 ms with jitter: commits take a few ms, so this keeps 8 writers fair.
    await sleep(Math.min(16, 1 + attempt) * (0.5 + Math.random()));
  }
}

/** @returns true when the caller should retry at once (lock gone or broken) */
async function breakIfStale(fs: StorageFs, lockPath: string): Promise<boolean> {
  const seen = await readLock(fs, lockPath);
  if (seen === 'missing') return true;
  const stale = seen.owner === 'garbage' ? await unreadableForTooLong(fs, lockPath) : isOwnerDead(seen.owner);
  if (!stale) return false;
  // Another waiter may have broken the same stale lock and published its own since we read it:
  // remove only if what we moved aside is byte for byte the stale lock we judged.
  await removeIf(fs, lockPath, (moved) => moved.bytes.equals(seen.bytes));
  return true;
}

async function release(fs: StorageFs, lockPath: string, isOurs: (snapshot: LockSnapshot) => boolean): Promise<void> {
  const deadline = Date.now() + ASIDE_GRACE_MS;
  // 'gone' may mean a breaker holds our lock aside for a moment and is about to put it back.
  while ((await removeIf(fs, lockPath, isOurs)) === 'gone' && Date.now() < deadline) await sleep(2);
}

/**
 * Renames the lock aside (atomic: exactly one mover gets a given file), then deletes it if it is
 * the expected one; otherwise links it back, exclusively, so it never replaces a newer lock.
 * @returns 'removed', 'restored' (not the expected lock), 'lost' (not expected, and a newer lock
 * took its place: its owner finds its nonce gone at its next check), or 'gone' (nothing to move)
 */
async function removeIf(fs: StorageFs, lockPath: string, expected: (moved: LockSnapshot) => boolean): Promise<'removed' | 'restored' | 'lost' | 'gone'> {
  const aside = join(dirname(lockPath), tempName());
  try {
    await fs.rename(lockPath, aside);
  } catch {
    return 'gone';
  }
  try {
    const moved = await readLock(fs, aside);
    if (moved !== 'missing' && expected(moved)) return 'removed';
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

async function assertHeld(fs: StorageFs, lockPath: string, isOurs: (snapshot: LockSnapshot) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + ASIDE_GRACE_MS;
  for (;;) {
    const current = await readLock(fs, lockPath);
    if (current !== 'missing' && isOurs(current)) return;
    if (current !== 'missing' || Date.now() >= deadline) break;
    await sleep(2);
  }
  throw new KernelStorageError(
    'STORAGE_IO',
    `Lost the lock ${lockPath} (another process broke or removed it) before ${what}; stopped so two writers never commit at once. Try again.`,
  );
}

const firstSeenUnreadable = new Map<string, number>();

async function unreadableForTooLong(fs: StorageFs, lockPath: string): Promise<boolean> {
  const stat = await fs.lstat(lockPath);
  if (!stat) return false; // gone: the caller retries, nothing to break
  const key = `${lockPath}\u0000${stat.signature}`;
  const first = firstSeenUnreadable.get(key) ?? Date.now();
  firstSeenUnreadable.set(key, first);
  if (Date.now() - first < UNREADABLE_LOCK_GRACE_MS) return false;
  firstSeenUnreadable.delete(key);
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
