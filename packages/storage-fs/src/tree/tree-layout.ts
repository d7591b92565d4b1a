import { join } from 'node:path';

/** Where one tree's files and its store-private state live. */
export interface TreeLayout {
  readonly treeId: string;
  /** `<root>/story-workspaces/<id>`: the caller's files. */
  readonly dir: string;
  /** `<dir>/.troupe`: store-private (a name no caller path can take: paths start with [a-z0-9]). */
  readonly metaDir: string;
  /** The commit record: revision + a SHA-256 and stat signature per file. */
  readonly recordPath: string;
  /** Present only while a multi-file change is being applied (roll forward on open). */
  readonly intentPath: string;
  /** Append-only `{marker, digest, revision}` lines: O(1) settle lookups, never a history.md scan. */
  readonly markersPath: string;
  /** Cross-process lock file. */
  readonly lockPath: string;
}

/** Folder under the storage root holding every tree. */
export const TREES_FOLDER = 'story-workspaces';
/** Store-private folder inside each tree. */
export const META_FOLDER = '.troupe';

/**
 * @param treesDir - `<root>/story-workspaces`
 * @param treeId - a validated tree id
 * @returns the tree's paths
 */
export function treeLayout(treesDir: string, treeId: string): TreeLayout {
  const dir = join(treesDir, treeId);
  const metaDir = join(dir, META_FOLDER);
  return {
    treeId,
    dir,
    metaDir,
    recordPath: join(metaDir, 'record.json'),
    intentPath: join(metaDir, 'intent.json'),
    markersPath: join(metaDir, 'settled.jsonl'),
    lockPath: join(metaDir, 'lock'),
  };
}
