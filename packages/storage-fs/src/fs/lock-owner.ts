import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as z from 'zod';
import { readFileBytes } from './read-file.js';
import { errorCode, type StorageFs } from './storage-fs.js';
import { isProcessAlive } from './temp-names.js';

/** What a lock file holds. `nonce` and `start` are absent in locks written by older versions. */
export const LockOwnerSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  at: z.number(),
  /** Random per acquisition: tells this holder's lock from any later one. */
  nonce: z.string().optional(),
  /** The holder's process start time (Linux clock ticks since boot), to detect pid reuse. */
  start: z.string().optional(),
});

/** A parsed lock file. */
export type LockOwner = z.infer<typeof LockOwnerSchema>;

// Nonces of the locks this process holds right now, shared by every copy of this module loaded in
// the process (so two copies never take each other's locks for leftovers of a crash).
const HELD_KEY = Symbol.for('@troupe/storage-fs/held-lock-nonces');
const registry = globalThis as Record<symbol, Set<string> | undefined>;
const held: Set<string> = registry[HELD_KEY] ?? new Set<string>();
registry[HELD_KEY] = held;

/**
 * A fresh owner record for this process, with a new random nonce.
 * @returns the record to write into the lock file
 */
export function newLockOwner(): LockOwner & { nonce: string } {
  const start = processStartTime(process.pid);
  return { pid: process.pid, host: hostname(), at: Date.now(), nonce: randomBytes(16).toString('hex'), ...(start ? { start } : {}) };
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
 * Whether a lock's owner is certainly gone, so the lock may be broken. Only owners on this host
 * can be judged: a lock from another host is never considered dead.
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

/** A lock file as read: its raw bytes (to compare identity) and its parsed owner. */
export interface LockSnapshot {
  readonly bytes: Buffer;
  readonly owner: LockOwner | 'garbage';
}

/**
 * Reads a lock file.
 * @param fs - file-system layer
 * @param path - the lock file
 * @returns the bytes and owner, or 'missing' when there is no such file
 */
export async function readLock(fs: StorageFs, path: string): Promise<LockSnapshot | 'missing'> {
  let bytes: Buffer;
  try {
    bytes = await readFileBytes(fs, path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'missing';
    return { bytes: Buffer.alloc(0), owner: 'garbage' };
  }
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return { bytes, owner: parsed.success ? parsed.data : 'garbage' };
  } catch {
    return { bytes, owner: 'garbage' };
  }
}
