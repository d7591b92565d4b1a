import { join } from 'node:path';
import { sha256Hex } from '@troupe/kernel/util';
import { mapLimited } from '../fs/map-limited.js';
import { readFileBytes } from '../fs/read-file.js';
import { treeFileText } from './tree-text.js';
import { NotSynchronous, noteSyncStats, type QuickStats, quickStats } from '../fs/stat-now.js';
import type { StorageFs } from '../fs/storage-fs.js';
import { tempOwner } from '../fs/temp-names.js';
import { META_FOLDER } from './tree-layout.js';
import { isTreePath } from './tree-paths.js';
import type { TreeRecord } from './tree-record.js';

const MAX_DEPTH = 8;
/** Stats in flight at once while scanning a tree. */
const PARALLEL_STATS = 16;

/**
 * Lists the tree's files as they are on disk now: regular files whose path the kernel accepts.
 * Symlinks, special files, temps, the private folder and foreign names (`.DS_Store`, `a.txt`)
 * are not part of the tree and are never followed.
 * @param fs - file-system layer
 * @param treeDir - the tree's folder
 * @returns path → stat signature
 */
export async function scanTree(fs: StorageFs, treeDir: string): Promise<Map<string, string>> {
  const quick = quickStats(fs);
  if (quick) {
    const startedAt = performance.now();
    try {
      return scanNow(quick, treeDir);
    } catch (error) {
      if (!(error instanceof NotSynchronous)) throw error;
    } finally {
      noteSyncStats(fs, startedAt);
    }
  }
  const found = new Map<string, string>();
  // Entries of one folder are stat'ed together and sub-folders walked together; the map is
  // still filled in sorted order, so records and snapshots list files the same way every time.
  const walk = async (dir: string, prefix: string, depth: number): Promise<[string, string][]> => {
    const names = (await fs.readdir(dir)).sort().filter((name) => name !== META_FOLDER && tempOwner(name) === undefined);
    const entries = await mapLimited(names, PARALLEL_STATS, async (name): Promise<[string, string][]> => {
      const stat = await fs.lstat(join(dir, name));
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      if (stat?.kind === 'directory' && depth < MAX_DEPTH) return walk(join(dir, name), rel, depth + 1);
      return stat?.kind === 'file' && isTreePath(rel) ? [[rel, stat.signature]] : [];
    });
    return entries.flat();
  };
  for (const [path, signature] of await walk(treeDir, '', 1)) found.set(path, signature);
  return found;
}

/**
 * {@link scanTree} with synchronous calls: one listing per folder (entry kinds included, so
 * folders and links need no stat) and one `lstat` per file, in the same sorted order.
 */
function scanNow(quick: QuickStats, treeDir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, prefix: string, depth: number) => {
    const entries = quick.readdir(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, kind } of entries) {
      if (name === META_FOLDER || tempOwner(name) !== undefined) continue;
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      if (kind === 'directory') {
        if (depth < MAX_DEPTH) walk(join(dir, name), rel, depth + 1);
        continue;
      }
      if (kind !== 'file' || !isTreePath(rel)) continue;
      // The listing may be a moment old: the stat decides (a file replaced by a folder is skipped).
      const stat = quick.lstat(join(dir, name));
      if (stat?.kind === 'file') found.set(rel, stat.signature);
    }
  };
  walk(treeDir, '', 1);
  return found;
}

/** What differs between the commit record and the disk. */
export interface TreeDrift {
  /** True when the player changed, added or removed files: absorb as a revision. */
  readonly edited: boolean;
  /** Entries for the files as on disk now (hash filled in for the ones that were read). */
  readonly files: TreeRecord['files'];
  /** The content of every file read to confirm a change (so a read after it need not open it again). */
  readonly read: ReadonlyMap<string, string>;
}

/**
 * Compares the disk with the record. A file whose stat signature is unchanged is trusted without
 * reading it (so settle never rereads a long history.md); a changed signature is confirmed by
 * hashing the content, so `touch` alone is not an edit.
 * @param fs - file-system layer
 * @param treeDir - the tree's folder
 * @param record - the commit record
 * @returns the drift
 */
export async function detectDrift(fs: StorageFs, treeDir: string, record: TreeRecord): Promise<TreeDrift> {
  const scanned = await scanTree(fs, treeDir);
  let edited = scanned.size !== Object.keys(record.files).length;
  const files: TreeRecord['files'] = {};
  const read = new Map<string, string>();
  for (const [path, signature] of scanned) {
    const known = record.files[path];
    if (known && known.signature === signature) {
      files[path] = known;
      continue;
    }
    const file = join(treeDir, path);
    const content = treeFileText(await readFileBytes(fs, file), file);
    const sha256 = sha256Hex(content);
    read.set(path, content);
    files[path] = { sha256, signature };
    if (!known || known.sha256 !== sha256) edited = true;
  }
  for (const path of Object.keys(record.files)) if (!scanned.has(path)) edited = true;
  return { edited, files, read };
}
