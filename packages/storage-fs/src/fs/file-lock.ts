import { hostname } from 'node:os';
import { join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import * as z from 'zod';
import { writeFully } from './atomic-write.js';
import { readFileBytes } from './read-file.js';
import { CREATE_EXCLUSIVE, errorCode, type StorageFs } from './storage-fs.js';
import { isProcessAlive, tempName } from './temp-names.js';

const LockOwnerSchema = z.object({ pid: z.number().int(), host: z.string(), at: z.number() });

/** How long a lock file whose owner cannot be read (someone else's garbage) is waited on. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

/** Options for {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long waiting for a live holder (default 30 s). */
  readonly timeoutMs?: number;
  /** Called when the lock's directory does not exist (e.g. the tree was deleted). */
  readonly onMissing: () => Error;
}

/**
 * Runs `work` holding a cross-process lock: a file created with O_EXCL holding `{pid, host, at}`.
 * A lock whose owner is a dead process on this host is stale and broken (a SIGKILLed holder
 * never blocks the store). Locks from other hosts are only waited on, never broken.
 * @param fs - file-system layer
 * @param lockPath - the lock file
 * @param options - timeout and the missing-directory error
 * @param work - the critical section
 * @returns what `work` returns
 * @throws {KernelStorageError} STORAGE_IO when the lock stays held past the timeout
 */
export async function withFileLock<T>(fs: StorageFs, lockPath: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  await acquire(fs, lockPath, options);
  try {
    return await work();
  } finally {
    // A failed release leaves a lock owned by a live pid; it becomes stale when we exit.
    await fs.unlink(lockPath).catch(() => undefined);
  }
}

async function acquire(fs: StorageFs, lockPath: string, options: FileLockOptions): Promise<void> {
  const body = Buffer.from(JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (let attempt = 0; ; attempt++) {
    // Write the owner into a temp, then link() it to the lock name: the lock appears complete
    // or not at all, so a holder killed mid-acquire never leaves an ownerless lock behind.
    const temp = join(lockPath, '..', tempName());
    try {
      const fd = await fs.open(temp, CREATE_EXCLUSIVE, 0o644);
      try {
        await writeFully(fs, fd, body, 0);
      } finally {
        await fs.close(fd);
      }
      await fs.link(temp, lockPath);
      return;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw options.onMissing();
      if (code !== 'EEXIST') throw new KernelStorageError('STORAGE_IO', `Could not lock ${lockPath} (${code})`, { cause: error });
    } finally {
      await fs.unlink(temp).catch(() => undefined);
    }
    if (await breakIfStale(fs, lockPath)) continue;
    if (Date.now() > deadline) {
      throw new KernelStorageError('STORAGE_IO', `${lockPath} is held by another process; gave up waiting. Remove it if no Troupe process is running.`);
    }
    // Back off 1–16 ms with jitter: commits take a few ms, so this keeps 8 writers fair.
    await new Promise((resolve) => setTimeout(resolve, Math.min(16, 1 + attempt) * (0.5 + Math.random())));
  }
}

async function breakIfStale(fs: StorageFs, lockPath: string): Promise<boolean> {
  const owner = await readOwner(fs, lockPath);
  // Released meanwhile: retry at once. Never break what we could not read: it may be a new lock.
  if (owner === 'missing') return true;
  const stale = owner === 'garbage' ? await unreadableForTooLong(fs, lockPath) : owner.host === hostname() && !isProcessAlive(owner.pid);
  if (!stale) return false;
  // Move it aside first so only one breaker removes it; a lost race just retries. Known gap: if
  // another waiter broke the same stale lock and took a fresh one between our read and this
  // rename, we move the fresh one (two holders for one commit). Putting it back instead could
  // resurrect a lock its owner already released, which is worse for a long-running server.
  const aside = join(lockPath, '..', tempName());
  try {
    await fs.rename(lockPath, aside);
    await fs.unlink(aside);
  } catch {
    // someone else broke or released it
  }
  return true;
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

async function readOwner(fs: StorageFs, path: string): Promise<z.infer<typeof LockOwnerSchema> | 'missing' | 'garbage'> {
  let text: string;
  try {
    text = (await readFileBytes(fs, path)).toString('utf8');
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? 'missing' : 'garbage';
  }
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'garbage';
  } catch {
    return 'garbage';
  }
}
