import { KernelStorageError, RevisionConflictError } from '@troupe/kernel';
import { StoryError } from '../errors.js';

/**
 * The player-facing error for a save based on a stale revision: it says someone else changed the
 * workspace, that nothing was saved, and what to do next.
 * @param id - workspace id
 * @param baseRevision - the revision the player edited
 * @param currentRevision - the workspace's revision now
 * @param cause - the storage error behind it, if any
 * @returns a `STORY_REVISION_CONFLICT` error (not thrown)
 */
export function revisionConflict(id: string, baseRevision: number, currentRevision: number, cause?: unknown): StoryError {
  return new StoryError(
    'STORY_REVISION_CONFLICT',
    `Someone else changed story workspace "${id}" while you were editing (you edited revision ${baseRevision}; it is now revision ${currentRevision}). Nothing was saved: reload to see their changes, then apply yours again.`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * Maps a kernel storage error to this package's codes (the original kept as `cause`); any other
 * value is returned unchanged.
 * @param id - the workspace the operation was about
 * @param error - what the tree store threw
 * @returns `STORY_REVISION_CONFLICT`, `STORY_WORKSPACE_NOT_FOUND`, `STORY_WORKSPACE_EXISTS`,
 *   `STORY_INVALID_ID` or `STORY_INVALID_PATH` as a {@link StoryError}, else `error` itself
 */
export function mapStorageError(id: string, error: unknown): unknown {
  if (error instanceof RevisionConflictError || (KernelStorageError.isInstance(error) && error.code === 'TREE_REVISION_CONFLICT')) {
    const e = error as RevisionConflictError;
    return revisionConflict(id, e.baseRevision, e.currentRevision, error);
  }
  if (!KernelStorageError.isInstance(error)) return error;
  switch (error.code) {
    case 'TREE_NOT_FOUND':
      return new StoryError('STORY_WORKSPACE_NOT_FOUND', `There is no story workspace "${id}"`, { cause: error });
    case 'TREE_EXISTS':
      return new StoryError('STORY_WORKSPACE_EXISTS', `A story workspace "${id}" already exists`, { cause: error });
    case 'TREE_INVALID_ID':
      return new StoryError('STORY_INVALID_ID', error.message, { cause: error, field: 'id' });
    case 'TREE_INVALID_PATH':
      return new StoryError('STORY_INVALID_PATH', error.message, { cause: error, field: 'path' });
    default:
      return error;
  }
}

/**
 * Runs a tree-store operation and rethrows its errors mapped by {@link mapStorageError}.
 * @param id - the workspace the operation is about
 * @param run - the operation
 * @returns what `run` resolves to
 * @throws {StoryError} the mapped codes above; other errors unchanged
 */
export async function withStoryErrors<T>(id: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw mapStorageError(id, error);
  }
}
