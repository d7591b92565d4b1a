import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countingStorageFs, fsStorage, nodeStorageFs, type StorageFs } from '../src/index.js';

/** A fresh temp root, removed by `cleanup`. */
export async function tempRoot(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'troupe-storage-'));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Storage on a fresh temp root. */
export async function tempStorage(fs: StorageFs = nodeStorageFs) {
  const { root, cleanup } = await tempRoot();
  return { ...fsStorage({ root, fs }), cleanup };
}

/** A stored error's code (or undefined when the promise resolved); the kernel's contract helper. */
export { codeOf } from '@troupe/kernel/contracts';

/** Thrown by {@link crashingFs} to simulate the process dying at an operation. */
export class SimulatedCrash extends Error {}

/**
 * An fs layer that records every operation and "crashes" (throws, and refuses every later call)
 * when the op counter reaches `crashAt`. Reopening with the real fs then sees exactly the disk
 * state a killed process would have left (process-crash model: completed syscalls persist).
 */
export function crashingFs(crashAt: number): { fs: StorageFs; ops: string[]; crashed: () => boolean } {
  const ops: string[] = [];
  let dead = false;
  const gate = (name: string) => {
    if (dead || ops.length >= crashAt) {
      dead = true;
      throw new SimulatedCrash(`crash before ${name}`);
    }
    ops.push(name);
  };
  // Without the synchronous calls: every operation goes through the gate as a promise.
  const asyncOnly = Object.entries(nodeStorageFs).filter(([name]) => !name.endsWith('Now'));
  const wrapped = Object.fromEntries(
    asyncOnly.map(([name, fn]) => [
      name,
      // lstat/readdir/read are not mutations, but the crash can still land between them.
      async (...args: unknown[]) => {
        gate(name);
        return (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as StorageFs;
  return { fs: wrapped, ops, crashed: () => dead };
}

/** Environment for child processes: plain Node resolving the built `dist` (no vitest conditions). */
export function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/** An fs layer that counts the bytes read from files whose path ends with `suffix` (the package's counting layer). */
export function countingFs(suffix: string): { fs: StorageFs; bytesRead: () => number } {
  const counting = countingStorageFs(nodeStorageFs, suffix);
  return { fs: counting.fs, bytesRead: () => counting.counts().bytesRead };
}
