import { randomBytes } from 'node:crypto';

// One pattern for every temp file and temp directory the store creates. Tree and session names
// must start with [a-z0-9], so a leading dot can never collide with caller data.
const TEMP_PREFIX = '.troupe-tmp-';
const TEMP_PATTERN = /^\.troupe-tmp-(\d+)-[0-9a-f]{12}$/;

/**
 * A fresh temp name carrying this process's pid (so sweepers can tell live temps from orphans).
 * @returns e.g. `.troupe-tmp-4242-9f86d081884c`
 */
export function tempName(): string {
  return `${TEMP_PREFIX}${process.pid}-${uniqueHex()}`;
}

// A random start drawn once, then counted up: unique within the process (the pid sets processes
// apart), without a call into the random source per name (a story turn names a dozen temps, and
// each such call cost more than the rest of the naming). Only someone who can already list the
// store's folders could guess the next name, and a name planted there is refused by the
// exclusive create, never followed.
let counter = randomBytes(6).readUIntBE(0, 6);

/**
 * Twelve hex digits no earlier call in this process returned (for temp names and lock nonces).
 * @returns e.g. `9f86d081884c`
 */
export function uniqueHex(): string {
  counter = (counter + 1) % 2 ** 48;
  return counter.toString(16).padStart(12, '0');
}

/**
 * Whether a directory entry is one of our temps, and which process made it.
 * @param name - a file or directory name
 * @returns the creating pid, or undefined when the name is not ours
 */
export function tempOwner(name: string): number | undefined {
  const match = TEMP_PATTERN.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * Whether a process is alive on this host.
 * @param pid - process id
 */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Whether a name is exactly one of the store's temp names (what an intent's `stage` must be).
 * @param name - a file name
 */
export function isTempName(name: string): boolean {
  return TEMP_PATTERN.test(name);
}
