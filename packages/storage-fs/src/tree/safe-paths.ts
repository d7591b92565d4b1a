import { join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import { errorCode, type StorageFs } from '../fs/storage-fs.js';
import { lstatQuick } from '../fs/stat-now.js';

function symlinkRefused(path: string, at: string): KernelStorageError {
  return new KernelStorageError(
    'TREE_INVALID_PATH',
    `Refusing ${JSON.stringify(path)}: "${at}" is a symbolic link or special file; the store never follows links. Replace it with a real folder or file.`,
  );
}

/**
 * Checks that writing `relPath` inside `treeDir` cannot go through a symlink: every existing
 * segment is lstat'ed (never followed); folders must be real folders, the file a regular file.
 * @param fs - file-system layer
 * @param treeDir - the tree's folder
 * @param relPath - a path already accepted by `validateTreePath`
 * @throws {KernelStorageError} TREE_INVALID_PATH naming the offending segment
 */
export async function assertWritablePath(fs: StorageFs, treeDir: string, relPath: string): Promise<void> {
  const segments = relPath.split('/');
  let current = treeDir;
  for (const [index, segment] of segments.entries()) {
    current = join(current, segment);
    const stat = await lstatQuick(fs, current);
    if (!stat) return; // the rest is created by the store as real folders
    const last = index === segments.length - 1;
    if (stat.kind === 'symlink' || stat.kind === 'other') throw symlinkRefused(relPath, segments.slice(0, index + 1).join('/'));
    if (!last && stat.kind !== 'directory') throw new KernelStorageError('TREE_INVALID_PATH', `Refusing ${JSON.stringify(relPath)}: "${segment}" is a file, not a folder`);
    if (last && stat.kind !== 'file') throw new KernelStorageError('TREE_INVALID_PATH', `Refusing ${JSON.stringify(relPath)}: it is a folder`);
  }
}

/**
 * Creates the folders above `relPath` (each one a real folder, never a link) and fsyncs new ones.
 * @param fs - file-system layer
 * @param treeDir - the tree's folder
 * @param relPath - a validated path
 * @returns the absolute folder that holds the file
 * @throws {KernelStorageError} TREE_INVALID_PATH when a segment turned into a link meanwhile
 */
export async function ensureParentDirs(fs: StorageFs, treeDir: string, relPath: string): Promise<string> {
  let current = treeDir;
  for (const segment of relPath.split('/').slice(0, -1)) {
    const parent = current;
    current = join(current, segment);
    try {
      await fs.mkdir(current);
      await fs.fsyncDir(parent);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      const stat = await lstatQuick(fs, current);
      if (stat?.kind !== 'directory') throw symlinkRefused(relPath, segment);
    }
  }
  return current;
}

/**
 * Creates a folder and its missing parents (for the storage root; not used inside trees).
 * @param fs - file-system layer
 * @param path - absolute folder
 */
export async function mkdirp(fs: StorageFs, path: string): Promise<void> {
  const stat = await lstatQuick(fs, path);
  if (stat?.kind === 'directory') return;
  const parent = join(path, '..');
  if (parent !== path) await mkdirp(fs, parent);
  try {
    await fs.mkdir(path);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
}
