import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as z from 'zod';
import { readFileBytes } from './read-file.js';
import { errorCode, type StorageFs } from './storage-fs.js';
import { isProcessAlive, uniqueHex } from './temp-names.js';

/** What a lock file holds. `nonce` and `start` are absent in locks written by older versions. */
export const LockOwnerSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  at: z.number(),
  /** Unique per acquisition (see `uniqueHex`): tells this holder's lock from any later one. */
  nonce: z.string().optional(),
  /** The holder's process start time (Linux clock ticks since boot), to detect pid reuse. */
  start: z.string().optional(),
  /**
   * The lease in milliseconds: the holder renews the lock file's mtime at least every third of
   * it. Absent in older locks, which get {@link DEFAULT_LEASE_MS}.
   */
  leaseMs: z.number().int().positive().max(3_600_000).optional(),
});

/** The lease a lock gets when its holder does not ask for another (20 s: renewed every ~6.7 s). */
export const DEFAULT_LEASE_MS = 20_000;

/** A parsed lock file. */
export type LockOwner = z.infer<typeof LockOwnerSchema>;

// Nonces of the locks this process holds right now, shared by every copy of this module loaded in
// the process (so two copies never take each other's locks for leftovers of a crash).
const HELD_KEY = Symbol.for('@troupe/storage-fs/held-lock-nonces');
const registry = globalThis as Record<symbol, Set<string> | undefined>;
const held: Set<string> = registry[HELD_KEY] ?? new Set<string>();
registry[HELD_KEY] = held;

/** This process's start time once read (null: not read yet). */
let ownStartTime: string | undefined | null = null;

/**
 * A fresh owner record for this process, with a new random nonce.
 * @param leaseMs - how long the lock stays valid without a renewal
 * @returns the record to write into the lock file
 */
export function newLockOwner(leaseMs: number = DEFAULT_LEASE_MS): LockOwner & { nonce: string } {
  // This process's start time never changes: read /proc once, not on every lock.
  if (ownStartTime === null) ownStartTime = processStartTime(process.pid);
  const start = ownStartTime;
  return { pid: process.pid, host: hostname(), at: Date.now(), nonce: uniqueHex(), ...(start ? { start } : {}), leaseMs };
}

/**
 * Marks a nonce as held (or no longer held) by this process.
 * @param nonce - the lock's nonce
 * @param holding - true while the lock is held
 */
export function markHeld(nonce: string, holding: boolean): void {
  if (holding) held.add(nonce);
  else held.delete(nonce);
}

/**
 * Whether a lock may be broken.
 * - On this host the owner's process is judged directly ({@link isOwnerDead}); a live owner keeps
 *   its lock even when a blocked event loop let the lease lapse.
 * - From another host (a container restarted under a new hostname, a shared folder) processes
 *   cannot be seen, so the lease decides: expired when the lock file's mtime (renewed by a live
 *   holder at least every third of the lease) is older than the lease.
 * @param owner - the parsed lock file
 * @param mtimeMs - the lock file's modification time
 * @param now - the current time
 * @returns true when the lock is stale
 */
export function isLockStale(owner: LockOwner, mtimeMs: number, now: number): boolean {
  if (owner.host === hostname()) return isOwnerDead(owner);
  return leaseExpiresAt(owner, mtimeMs) < now;
}

/**
 * When a lock's lease runs out unless its holder renews it.
 * @param owner - the parsed lock file
 * @param mtimeMs - the lock file's modification time (the last renewal)
 * @returns milliseconds since the epoch
 */
export function leaseExpiresAt(owner: LockOwner, mtimeMs: number): number {
  return mtimeMs + (owner.leaseMs ?? DEFAULT_LEASE_MS);
}

/**
 * Whether a lock's owner on this host is certainly gone, so the lock may be broken. Only owners
 * on this host can be judged: for a lock from another host this is always false.
 * - our own pid: dead unless this process holds that nonce now (a crashed or abandoned attempt);
 * - another pid: dead when no such process exists, or when a process with that pid exists but
 *   started at another time than the one recorded (the pid was reused after the holder died).
 * @param owner - the parsed lock file
 * @returns true when the lock is stale
 */
export function isOwnerDead(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return owner.nonce !== undefined && !held.has(owner.nonce);
  if (!isProcessAlive(owner.pid)) return true;
  if (owner.start === undefined) return false;
  const current = processStartTime(owner.pid);
  return current !== undefined && current !== owner.start;
}

/**
 * A process's start time, where the platform exposes it cheaply (Linux: field 22 of
 * `/proc/<pid>/stat`, clock ticks since boot). Elsewhere liveness falls back to the pid alone.
 * @param pid - process id
 * @returns the start time as a decimal string, or undefined when unknown
 */
export function processStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name) is in parentheses and may itself contain spaces or ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[22 - 3];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** The largest lock file read: a real one is ~200 bytes. */
const MAX_LOCK_BYTES = 4096;

/** A lock file as read: its raw bytes (to compare identity), its parsed owner and its mtime. */
export interface LockSnapshot {
  readonly bytes: Buffer;
  readonly owner: LockOwner | 'garbage';
  /** The lock file's mtime when read (0 when unknown): the holder's last lease renewal. */
  readonly mtimeMs: number;
}

/**
 * Reads a lock file.
 * @param fs - file-system layer
 * @param path - the lock file
 * @returns the bytes and owner, or 'missing' when there is no such file
 */
export async function readLock(fs: StorageFs, path: string): Promise<LockSnapshot | 'missing'> {
  let bytes: Buffer;
  let mtimeMs = 0;
  try {
    // Lock files are tiny; anything larger is not ours (and is not read into memory).
    const stat = await fs.lstat(path);
    if (!stat) return 'missing';
    mtimeMs = stat.mtimeMs;
    if (stat.kind !== 'file' || stat.size > MAX_LOCK_BYTES) return { bytes: Buffer.from(stat.signature), owner: 'garbage', mtimeMs };
    bytes = await readFileBytes(fs, path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing';
    return { bytes: Buffer.alloc(0), owner: 'garbage', mtimeMs };
  }
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return { bytes, owner: parsed.success ? parsed.data : 'garbage', mtimeMs };
  } catch {
    return { bytes, owner: 'garbage', mtimeMs };
  }
}
