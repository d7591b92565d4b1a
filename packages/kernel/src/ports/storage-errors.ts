import { defineErrorClass } from '../errors/troupe-error.js';

/** Stable codes for storage port errors (shared by every `TreeStore` / `SessionLog`). */
export type StorageErrorCode =
  | 'TREE_INVALID_PATH'
  | 'TREE_INVALID_INPUT'
  | 'TREE_INVALID_ID'
  | 'TREE_NOT_FOUND'
  | 'TREE_EXISTS'
  | 'TREE_REVISION_CONFLICT'
  | 'TREE_SETTLE_CONFLICT'
  | 'TREE_INVALID_MARKER'
  | 'TREE_CORRUPT'
  | 'SESSION_INVALID_ID'
  | 'SESSION_INVALID_EVENT'
  | 'SESSION_EVENT_NOT_FOUND'
  | 'SESSION_EXISTS'
  | 'SESSION_CORRUPT'
  | 'STORAGE_IO';

/**
 * Error thrown by storage implementations; `code` is stable. `KernelStorageError.isInstance` works
 * across package copies.
 */
export class KernelStorageError extends defineErrorClass<StorageErrorCode>('KernelStorageError') {}

/**
 * A commit was based on a revision that is no longer the latest: someone else changed the tree.
 * Nothing was written. Reload, re-apply the change, and commit again.
 */
export class RevisionConflictError extends KernelStorageError {
  /** Recorded on instances so `RevisionConflictError.isInstance` works across package copies. */
  static override readonly errorKind: string = 'RevisionConflictError';
  /** The revision the caller based its change on. */
  readonly baseRevision: number;
  /** The tree's revision now. */
  readonly currentRevision: number;

  /**
   * @param treeId - the tree that changed
   * @param baseRevision - the caller's base
   * @param currentRevision - the latest revision
   */
  constructor(treeId: string, baseRevision: number, currentRevision: number) {
    super(
      'TREE_REVISION_CONFLICT',
      `"${treeId}" was changed by someone else: your edit is based on revision ${baseRevision}, the latest is ${currentRevision}. Nothing was saved; reload and apply your change again.`,
    );
    this.name = 'RevisionConflictError';
    this.baseRevision = baseRevision;
    this.currentRevision = currentRevision;
  }
}
