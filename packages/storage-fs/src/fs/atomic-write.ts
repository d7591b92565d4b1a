import { join } from 'node:path';
import { KernelStorageError } from '@troupe/kernel';
import { CREATE_EXCLUSIVE, type StorageFs } from './storage-fs.js';
import { tempName } from './temp-names.js';
import { quickLayer } from './quick-layer.js';

/**
 * Writes all of `data` at `position`, looping over short writes. A write that makes no progress
 * (0 bytes) is an error rather than an endless loop.
 * @param fs - file-system layer
 * @param fd - open descriptor
 * @param data - bytes to write
 * @param position - file offset of the first byte
 * @throws {KernelStorageError} STORAGE_IO on no progress (errors from `fs.write` pass through)
 */
export async function writeFully(fs: StorageFs, fd: number, data: Uint8Array, position: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const count = await fs.write(fd, data, written, data.length - written, position + written);
    if (!Number.isInteger(count) || count <= 0) {
      throw new KernelStorageError('STORAGE_IO', `Write made no progress after ${written} of ${data.length} bytes (disk full?)`);
    }
    written += count;
  }
}

/**
 * Replaces `dir/name` atomically: exclusive temp in the same directory (never following a planted
 * symlink), write loop, size check, fsync, rename, fsync of the directory. On any failure the temp
 * is removed and the target is untouched. Callers must have checked `dir` holds no symlinks.
 * @param layer - file-system layer (its calls that have a synchronous form run on the calling thread, see `quickLayer`)
 * @param dir - the target's directory
 * @param name - the target's file name
 * @param data - the complete new content
 * @throws {KernelStorageError} STORAGE_IO when any step fails (with the cause)
 */
export async function atomicWriteFile(layer: StorageFs, dir: string, name: string, data: Uint8Array): Promise<void> {
  const temp = await stageFile(layer, dir, name, data);
  await publishFile(layer, dir, temp, name);
}

/**
 * The first half of {@link atomicWriteFile}: the complete new content in a synced temp beside the
 * target (exclusive, never following a planted symlink), for a caller that renames it into place
 * later, once what must be durable before it is ({@link publishFile}). On failure the temp is removed.
 * @param layer - file-system layer
 * @param dir - the target's directory
 * @param name - the target's file name (for error messages)
 * @param data - the complete new content
 * @returns the temp's path
 * @throws {KernelStorageError} STORAGE_IO when any step fails (with the cause)
 */
export async function stageFile(layer: StorageFs, dir: string, name: string, data: Uint8Array): Promise<string> {
  const fs = quickLayer(layer);
  const temp = join(dir, tempName());
  let fd: number | undefined;
  try {
    fd = await fs.open(temp, CREATE_EXCLUSIVE, 0o644);
    await writeFully(fs, fd, data, 0);
    const size = await fs.fsize(fd);
    if (size !== data.length) throw new KernelStorageError('STORAGE_IO', `Wrote ${size} of ${data.length} bytes to ${temp}`);
    await fs.fsync(fd);
    const closing = fd;
    fd = undefined;
    await fs.close(closing);
    return temp;
  } catch (error) {
    if (fd !== undefined) await fs.close(fd).catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw asIoError(error, `Could not write ${join(dir, name)}`);
  }
}

/**
 * The second half of {@link atomicWriteFile}: renames a temp from {@link stageFile} over the target
 * and syncs the directory. On failure the temp is removed and the target is untouched.
 * @param layer - file-system layer
 * @param dir - the target's directory (the temp's too)
 * @param temp - the staged temp's path
 * @param name - the target's file name
 * @throws {KernelStorageError} STORAGE_IO when the rename or the directory sync fails
 */
export async function publishFile(layer: StorageFs, dir: string, temp: string, name: string): Promise<void> {
  await renameIntoPlace(layer, dir, temp, name);
  await quickLayer(layer).fsyncDir(dir);
}

/**
 * {@link publishFile} without the directory sync, for a caller that makes the new name durable
 * later (and keeps a way to redo the change until then).
 * @param layer - file-system layer
 * @param dir - the target's directory (the temp's too)
 * @param temp - the staged temp's path
 * @param name - the target's file name
 * @throws {KernelStorageError} STORAGE_IO when the rename fails (the temp is removed, the target untouched)
 */
export async function renameIntoPlace(layer: StorageFs, dir: string, temp: string, name: string): Promise<void> {
  const fs = quickLayer(layer);
  const target = join(dir, name);
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw asIoError(error, `Could not write ${target}`);
  }
}

/**
 * Wraps a low-level error as STORAGE_IO (storage errors pass through unchanged).
 * @param error - what was thrown
 * @param message - what the store was doing
 * @returns a KernelStorageError
 */
export function asIoError(error: unknown, message: string): KernelStorageError {
  if (KernelStorageError.isInstance(error)) return error;
  const code = (error as { code?: string } | null)?.code;
  return new KernelStorageError('STORAGE_IO', `${message}${code ? ` (${code})` : ''}`, { cause: error });
}
