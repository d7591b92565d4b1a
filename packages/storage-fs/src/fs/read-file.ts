import { NotSynchronous, noteSyncStats, quickRead } from './stat-now.js';
import { READ_NOFOLLOW, type StorageFs } from './storage-fs.js';

/**
 * Reads bytes `[start, end)` of a file opened without following symlinks (ELOOP on a symlink):
 * on the calling thread when the layer can and the range is small (see `StorageFs.readNow`).
 * @param fs - file-system layer
 * @param path - file to read
 * @param start - first byte (default 0)
 * @param end - end offset (default: the file's size)
 * @returns the bytes read
 */
export async function readFileBytes(fs: StorageFs, path: string, start = 0, end?: number): Promise<Buffer> {
  const quick = quickRead(fs);
  if (quick) {
    const startedAt = performance.now();
    try {
      const bytes = quick(path, start, end);
      if (bytes) return bytes;
    } catch (error) {
      if (!(error instanceof NotSynchronous)) throw error;
    } finally {
      noteSyncStats(fs, startedAt);
    }
  }
  const fd = await fs.open(path, READ_NOFOLLOW);
  try {
    const stop = end ?? (await fs.fsize(fd));
    const buffer = Buffer.alloc(Math.max(0, stop - start));
    let offset = 0;
    while (offset < buffer.length) {
      const count = await fs.read(fd, buffer, offset, buffer.length - offset, start + offset);
      if (count === 0) return buffer.subarray(0, offset);
      offset += count;
    }
    return buffer;
  } finally {
    await fs.close(fd);
  }
}
