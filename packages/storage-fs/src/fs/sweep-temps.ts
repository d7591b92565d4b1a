import { join } from 'node:path';
import type { StorageFs } from './storage-fs.js';
import { isProcessAlive, tempOwner } from './temp-names.js';
import { lstatQuick } from './stat-now.js';

/**
 * Removes temp files and folders in the tree left by dead processes or by this one (call under
 * the tree lock, after recovery: then none of ours belongs to a change in flight). Temps of other
 * live processes are lock attempts in progress and are left alone. Caller files are never touched.
 * @param fs - file-system layer
 * @param dir - the folder to sweep (a tree folder, or a session folder)
 * @param recursive - also sweep sub-folders (default true; false for a flat session folder)
 * @returns how many temps were removed
 */
export async function sweepTemps(fs: StorageFs, dir: string, recursive = true): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(dir)) {
    const path = join(dir, name);
    const stat = await lstatQuick(fs, path);
    const owner = tempOwner(name);
    if (owner !== undefined) {
      if (owner !== process.pid && isProcessAlive(owner)) continue;
      if (stat?.kind === 'directory') await fs.removeTree(path);
      else await fs.unlink(path).catch(() => undefined);
      removed += 1;
    } else if (recursive && stat?.kind === 'directory') {
      removed += await sweepTemps(fs, path);
    }
  }
  return removed;
}

/**
 * Removes the temps of dead processes directly in `dir` (not recursive). For the trees and
 * sessions folders, swept without a lock: temps of live processes, including this one, may be a
 * create or delete in flight, so only orphans of dead processes are removed.
 * @param fs - file-system layer
 * @param dir - `<root>/story-workspaces` or `<root>/sessions`
 * @returns how many temps were removed
 */
export async function sweepDeadTemps(fs: StorageFs, dir: string): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(dir)) {
    const owner = tempOwner(name);
    if (owner === undefined || isProcessAlive(owner)) continue;
    await fs.removeTree(join(dir, name));
    removed += 1;
  }
  return removed;
}
