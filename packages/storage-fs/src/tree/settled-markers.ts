import { KernelStorageError } from '@troupe/kernel';
import { SETTLE_MARKER_PATTERN } from '@troupe/kernel/storage';
import * as z from 'zod';
import { writeFully } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { type StorageFs, WRITE_NOFOLLOW } from '../fs/storage-fs.js';
import type { TreeLayout } from './tree-layout.js';
import { lstatQuick } from '../fs/stat-now.js';

// Untrusted like every store-private file: each line is checked, and the file's size is bounded.
const MarkerLineSchema = z.object({
  marker: z.string().regex(SETTLE_MARKER_PATTERN),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});
/** 64 MiB: about 400 000 settlements. */
const MAX_MARKERS_BYTES = 64 * 1024 * 1024;

/**
 * The settled markers of one tree, read incrementally from `.troupe/settled.jsonl`: one line per
 * settlement, so a lookup is a Map hit and a reload reads only the lines other processes added.
 */
export class SettledMarkers {
  readonly #digests = new Map<string, string>();
  #offset = 0;
  #inode = '';

  /**
   * Catches up with the file (call under the tree lock). A torn last line (crash mid-append) is
   * ignored here and overwritten by the next {@link append}.
   * @param fs - file-system layer
   * @param layout - the tree
   * @throws {KernelStorageError} TREE_CORRUPT when a complete line is not a marker record
   */
  async refresh(fs: StorageFs, layout: TreeLayout): Promise<void> {
    const stat = await lstatQuick(fs, layout.markersPath);
    const inode = stat?.signature.split(':')[0] ?? '';
    if (!stat || inode !== this.#inode || stat.size < this.#offset) {
      this.#digests.clear();
      this.#offset = 0;
      this.#inode = inode;
    }
    if (!stat || stat.size === this.#offset) return;
    if (stat.kind !== 'file' || stat.size > MAX_MARKERS_BYTES) {
      throw new KernelStorageError('TREE_CORRUPT', `${layout.markersPath} is not a regular file of at most ${MAX_MARKERS_BYTES} bytes; restore it from a backup or delete the workspace`);
    }
    const bytes = await readFileBytes(fs, layout.markersPath, this.#offset, stat.size);
    const end = bytes.lastIndexOf(0x0a) + 1;
    for (const [index, line] of bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1).entries()) {
      let parsed: z.infer<typeof MarkerLineSchema>;
      try {
        parsed = MarkerLineSchema.parse(JSON.parse(line));
      } catch (error) {
        throw new KernelStorageError('TREE_CORRUPT', `${layout.markersPath}: line ${index + 1} after byte ${this.#offset} is damaged; nothing was changed`, { cause: error });
      }
      this.#digests.set(parsed.marker, parsed.digest);
    }
    this.#offset += end;
  }

  /**
   * The digest a marker was settled with.
   * @param marker - settlement marker
   * @returns the digest, or undefined when the marker was never settled
   */
  digestOf(marker: string): string | undefined {
    return this.#digests.get(marker);
  }

  /**
   * Durably records a settlement (call under the tree lock, after {@link refresh}).
   * @param fs - file-system layer
   * @param layout - the tree
   * @param marker - settlement marker
   * @param digest - `settlementDigest` of its appends
   * @param revision - the revision it produced
   */
  async append(fs: StorageFs, layout: TreeLayout, marker: string, digest: string, revision: number): Promise<void> {
    if (this.#digests.has(marker)) return;
    const line = Buffer.from(`${JSON.stringify({ marker, digest, revision })}\n`);
    const fd = await fs.open(layout.markersPath, WRITE_NOFOLLOW, 0o644);
    try {
      // Writing at our offset (not O_APPEND) overwrites a torn tail left by a crash.
      await fs.ftruncate(fd, this.#offset);
      await writeFully(fs, fd, line, this.#offset);
      await fs.fsync(fd);
    } finally {
      await fs.close(fd);
    }
    if (this.#offset === 0) {
      await fs.fsyncDir(layout.metaDir);
      this.#inode = (await lstatQuick(fs, layout.markersPath))?.signature.split(':')[0] ?? '';
    }
    this.#offset += line.length;
    this.#digests.set(marker, digest);
  }
}
