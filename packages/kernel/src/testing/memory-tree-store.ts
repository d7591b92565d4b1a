import { KernelStorageError, RevisionConflictError } from '../ports/storage-errors.js';
import {
  appendSettleBlock,
  MANIFEST_PATH,
  stampManifestRevision,
  validateTreeCommit,
  validateTreeFiles,
  validateTreeId,
  validateTreeSettlement,
} from '../ports/tree-rules.js';
import type { SettleResult, TreeCommit, TreeSettlement, TreeSnapshot, TreeStore } from '../ports/tree-store.js';

interface MemoryTree {
  revision: number;
  files: Record<string, string>;
  /** Per settled marker, what it appended (the store's own validated copy). */
  readonly settled: Map<string, Readonly<Record<string, string>>>;
  /** Per path, the content the last settlement produced (it ends with a line break). */
  readonly lastSettled: Map<string, string>;
}

/**
 * An in-memory {@link TreeStore} with the same semantics as `@troupe/storage-fs` (both pass the
 * contract suite): revision checks, all-or-nothing commits, idempotent settlements.
 */
export class MemoryTreeStore implements TreeStore {
  readonly #trees = new Map<string, MemoryTree>();

  async create(treeId: string, files: Readonly<Record<string, string>>): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    const normalised = validateTreeFiles(files);
    if (this.#trees.has(treeId)) throw new KernelStorageError('TREE_EXISTS', `"${treeId}" already exists`);
    const tree: MemoryTree = { revision: 1, files: normalised, settled: new Map(), lastSettled: new Map() };
    stamp(tree);
    this.#trees.set(treeId, tree);
    return snapshot(treeId, tree);
  }

  async read(treeId: string): Promise<TreeSnapshot> {
    return snapshot(treeId, this.#get(treeId));
  }

  async currentRevision(treeId: string): Promise<number> {
    return this.#get(treeId).revision;
  }

  async commit(treeId: string, change: TreeCommit): Promise<TreeSnapshot> {
    validateTreeId(treeId);
    // Input first, then existence: the same order as @troupe/storage-fs.
    const { baseRevision, writes } = validateTreeCommit(change);
    const tree = this.#get(treeId);
    if (baseRevision !== tree.revision) throw new RevisionConflictError(treeId, baseRevision, tree.revision);
    const files = { ...tree.files };
    for (const [path, content] of writes) {
      tree.lastSettled.delete(path);
      if (content === null) delete files[path];
      else files[path] = content;
    }
    tree.files = files;
    tree.revision += 1;
    stamp(tree);
    return snapshot(treeId, tree);
  }

  async settle(treeId: string, settlement: TreeSettlement): Promise<SettleResult> {
    validateTreeId(treeId);
    const { marker, appends } = validateTreeSettlement(settlement);
    const tree = this.#get(treeId);
    const previous = tree.settled.get(marker);
    if (previous !== undefined) {
      if (!sameAppends(previous, appends)) {
        throw new KernelStorageError('TREE_SETTLE_CONFLICT', `Marker "${marker}" was already settled with different content`);
      }
      return { applied: false, revision: tree.revision };
    }
    const files = { ...tree.files };
    for (const [path, text] of Object.entries(appends)) {
      // Appending never reads the file: a long history.md costs its new block, not its length
      // (reading its end would make V8 copy the whole appended string).
      const existing = files[path] ?? '';
      const separated = tree.lastSettled.get(path) === existing || existing === '' || existing.endsWith('\n');
      files[path] = `${existing}${separated ? '' : '\n'}${appendSettleBlock('', marker, text)}`;
      tree.lastSettled.set(path, files[path]);
    }
    tree.files = files;
    tree.revision += 1;
    // The appends themselves, not their digest: in memory a comparison is exact and costs no hash.
    tree.settled.set(marker, appends);
    stamp(tree);
    return { applied: true, revision: tree.revision };
  }

  async list(): Promise<readonly string[]> {
    return [...this.#trees.keys()].sort();
  }

  async delete(treeId: string): Promise<boolean> {
    validateTreeId(treeId);
    return this.#trees.delete(treeId);
  }

  #get(treeId: string): MemoryTree {
    validateTreeId(treeId);
    const tree = this.#trees.get(treeId);
    if (!tree) throw new KernelStorageError('TREE_NOT_FOUND', `There is no "${treeId}"`);
    return tree;
  }
}

// The same content as `settlementDigest` compares: the same paths with the same texts, in any order.
function sameAppends(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const paths = Object.keys(a);
  if (paths.length !== Object.keys(b).length) return false;
  return paths.every((path) => Object.hasOwn(b, path) && b[path] === a[path]);
}

// Stamps the manifest of a revision's new files object, then freezes it: every change builds a
// new object, so a revision's files never change again and snapshots can share them.
function stamp(tree: MemoryTree): void {
  const manifest = tree.files[MANIFEST_PATH];
  if (manifest !== undefined) tree.files[MANIFEST_PATH] = stampManifestRevision(manifest, tree.revision);
  Object.freeze(tree.files);
}

function snapshot(treeId: string, tree: MemoryTree): TreeSnapshot {
  return { treeId, revision: tree.revision, files: tree.files };
}
