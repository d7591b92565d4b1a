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

const STORAGE_ERROR_MARKER = Symbol.for('@troupe/kernel/KernelStorageError');

/** Error thrown by storage implementations; `code` is stable. */
export class KernelStorageError extends Error {
  readonly code: StorageErrorCode;
  readonly [STORAGE_ERROR_MARKER] = true;

  /**
   * @param code - stable error code
   * @param message - what went wrong and what to do
   * @param options - the underlying cause
   */
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KernelStorageError';
    this.code = code;
  }

  /** True for storage errors from any copy of the kernel package. */
  static isInstance(value: unknown): value is KernelStorageError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORAGE_ERROR_MARKER] === true;
  }
}

/**
 * A commit was based on a revision that is no longer the latest: someone else changed the tree.
 * Nothing was written. Reload, re-apply the change, and commit again.
 */
export class RevisionConflictError extends KernelStorageError {
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
