import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative } from 'node:path';

// A storage backend or app that refuses a hostile path must touch nothing outside its data dir;
// tests prove it by comparing a snapshot of the surroundings before and after.

/**
 * Every entry under `dir` except `skip` (the data dir): path → kind, size, mtime and a content hash.
 * Two snapshots are equal exactly when nothing there was created, changed or removed.
 * Symbolic links are described, never followed.
 * @param dir - the folder around the data dir
 * @param skip - the data dir (not part of the snapshot)
 * @returns a sorted, comparable description
 */
export async function snapshotOutside(dir: string, skip: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (current: string): Promise<void> => {
    for (const name of (await readdir(current)).sort()) {
      const path = join(current, name);
      if (path === skip) continue;
      const stat = await lstat(path);
      const rel = relative(dir, path);
      if (stat.isSymbolicLink()) out[rel] = `link → ${await readlink(path)}`;
      else if (stat.isDirectory()) {
        out[rel] = 'dir';
        await walk(path);
      } else out[rel] = `file ${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(await readFile(path)).digest('hex')}`;
    }
  };
  await walk(dir);
  return out;
}
