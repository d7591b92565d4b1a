/** A tree at one revision: every file's text, keyed by its relative POSIX path. */
export interface TreeSnapshot {
  readonly treeId: string;
  /** Starts at 1 on `create`; every successful `commit` or applied `settle` adds exactly 1. */
  readonly revision: number;
  readonly files: Readonly<Record<string, string>>;
}

/** A change based on a known revision. `writes[path] = null` deletes the file. */
export interface TreeCommit {
  readonly baseRevision: number;
  readonly writes: Readonly<Record<string, string | null>>;
}

/** Post-turn appends, applied at most once per `marker`. */
export interface TreeSettlement {
  /** Stable per-turn marker, e.g. `turn-42:0`. Pattern: {@link SETTLE_MARKER_PATTERN}. */
  readonly marker: string;
  /** Text appended to each file (created when missing), wrapped as {@link formatSettleBlock}. */
  readonly appends: Readonly<Record<string, string>>;
}

/** The outcome of {@link TreeStore.settle}. */
export interface SettleResult {
  /** False when this marker was already settled with the same content (nothing written). */
  readonly applied: boolean;
  /** The tree's revision after the call. */
  readonly revision: number;
}

/**
 * A revisioned tree of text files; a story workspace is one. Implementations: in-memory
 * (`@troupe/kernel/testing`) and on disk (`@troupe/storage-fs`); both pass the contract suite in
 * `@troupe/kernel/contracts`.
 *
 * If a tree holds `manifest.json` with a JSON object, the store owns its `revision` field (kept
 * equal to the tree's revision); every other field belongs to the caller and is preserved.
 */
export interface TreeStore {
  /**
   * @throws {KernelStorageError} TREE_EXISTS, TREE_INVALID_ID, TREE_INVALID_PATH
   */
  create(treeId: string, files: Readonly<Record<string, string>>): Promise<TreeSnapshot>;
  /** @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID */
  read(treeId: string): Promise<TreeSnapshot>;
  /**
   * Applies all writes as one revision, or none of them.
   * @throws {RevisionConflictError} TREE_REVISION_CONFLICT when `baseRevision` is not the latest
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_PATH
   */
  commit(treeId: string, change: TreeCommit): Promise<TreeSnapshot>;
  /**
   * Appends once per marker, rebased on the latest revision (so concurrent edits survive).
   * @throws {KernelStorageError} TREE_SETTLE_CONFLICT when the marker was settled with other content
   */
  settle(treeId: string, settlement: TreeSettlement): Promise<SettleResult>;
  /**
   * Optional: the revision `read` would return now, found without reading the tree's files (a
   * stat/signature check where the store can), so a caller holding a snapshot of this revision
   * can keep using it instead of reading the tree again. A store that absorbs edits made outside
   * it (storage-fs: a player saving a file) absorbs them first, so such an edit is a new revision
   * here as well. Callers without it read the tree.
   * @throws {KernelStorageError} TREE_NOT_FOUND, TREE_INVALID_ID
   */
  currentRevision?(treeId: string): Promise<number>;
  /** Ids of every tree, sorted. */
  list(): Promise<readonly string[]>;
  /** Removes the tree; false when it did not exist. */
  delete(treeId: string): Promise<boolean>;
}

/** The file whose `revision` field the store keeps in step with the tree. */
export const MANIFEST_PATH = 'manifest.json';

/** Tree ids: lower-case letters, digits, `_`, `-`; 1–64 characters; starting alphanumeric. */
export const TREE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Settlement markers: 1–200 characters of letters, digits, `:`, `.`, `_`, `-`. */
export const SETTLE_MARKER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,199}$/;
