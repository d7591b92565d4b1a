import { join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import { sha256Hex } from '@troupe/kernel/util';
import { validateTreeId } from '@troupe/kernel/storage';
import { asIoError, atomicWriteFile } from '../fs/atomic-write.js';
import { errorCode, type StorageFs } from '../fs/storage-fs.js';
import { sweepDeadTemps } from '../fs/sweep-temps.js';
import { tempName } from '../fs/temp-names.js';
import { ensureParentDirs, mkdirp } from './safe-paths.js';
import { META_FOLDER, type TreeLayout, treeLayout } from './tree-layout.js';
import { type TreeRecord, writeRecord } from './tree-record.js';

/**
 * Creates a tree atomically: everything is built in a temp folder next to the trees and renamed
 * into place, so a crash leaves either no tree or a complete one.
 * @param fs - file-system layer
 * @param treesDir - `<root>/story-workspaces`
 * @param layout - the new tree
 * @param files - validated paths → content (manifest already stamped)
 * @throws {KernelStorageError} TREE_EXISTS, STORAGE_IO
 */
export async function createTree(fs: StorageFs, treesDir: string, layout: TreeLayout, files: Record<string, string>): Promise<void> {
  try {
    await mkdirp(fs, treesDir);
    await sweepDeadTemps(fs, treesDir);
    if (await fs.lstat(layout.dir)) throw exists(layout.treeId);
    const staging = treeLayout(treesDir, tempName());
    await fs.mkdir(staging.dir);
    try {
      await fs.mkdir(staging.metaDir);
      const record: TreeRecord = { format: 1, revision: 1, files: {} };
      for (const [path, content] of Object.entries(files)) {
        const dir = await ensureParentDirs(fs, staging.dir, path);
        await atomicWriteFile(fs, dir, path.split('/').pop() ?? path, Buffer.from(content, 'utf8'));
        const stat = await fs.lstat(join(staging.dir, path));
        record.files[path] = { sha256: sha256Hex(content), signature: stat?.signature ?? '' };
      }
      await writeRecord(fs, staging, record);
      await fs.fsyncDir(staging.dir);
      await fs.rename(staging.dir, layout.dir);
    } catch (error) {
      await fs.removeTree(staging.dir).catch(() => undefined);
      if (['EEXIST', 'ENOTEMPTY'].includes(errorCode(error) ?? '')) throw exists(layout.treeId);
      throw error;
    }
    await fs.fsyncDir(treesDir);
  } catch (error) {
    throw asIoError(error, `Could not create "${layout.treeId}"`);
  }
}

/**
 * Removes a tree: renamed aside first (so it vanishes at once), then deleted.
 * @param fs - file-system layer
 * @param treesDir - `<root>/story-workspaces`
 * @param layout - the tree
 * @returns false when it did not exist
 */
export async function deleteTree(fs: StorageFs, treesDir: string, layout: TreeLayout): Promise<boolean> {
  const stat = await fs.lstat(layout.dir);
  if (!stat) return false;
  if (stat.kind !== 'directory') throw new KernelStorageError('TREE_CORRUPT', `${layout.dir} is not a real folder`);
  const aside = join(treesDir, tempName());
  try {
    await fs.rename(layout.dir, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw asIoError(error, `Could not delete "${layout.treeId}"`);
  }
  await fs.fsyncDir(treesDir);
  await fs.removeTree(aside);
  return true;
}

/**
 * Ids of every complete tree, sorted.
 * @param fs - file-system layer
 * @param treesDir - `<root>/story-workspaces`
 * @returns tree ids with a commit record (or a linked, refused, private folder)
 * @throws {KernelStorageError} STORAGE_IO
 */
export async function listTrees(fs: StorageFs, treesDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(treesDir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw asIoError(error, `Could not list ${treesDir}`);
  }
  const ids: string[] = [];
  for (const name of names) {
    try {
      validateTreeId(name);
    } catch {
      continue;
    }
    // A linked private folder is listed too (reading it fails with TREE_CORRUPT), so it can be deleted.
    const meta = await fs.lstat(join(treesDir, name, META_FOLDER));
    if (meta?.kind === 'symlink') {
      ids.push(name);
      continue;
    }
    const record = await fs.lstat(join(treesDir, name, META_FOLDER, 'record.json'));
    if (record?.kind === 'file') ids.push(name);
  }
  return ids.sort();
}

function exists(treeId: string): KernelStorageError {
  return new KernelStorageError('TREE_EXISTS', `"${treeId}" already exists`);
}
