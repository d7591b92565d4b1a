import { KernelStorageError, type TreeStore } from '@troupe/kernel';
import { appendSettleBlock } from '@troupe/kernel/storage';
import { asLineEnded, blockText, findBlock, replaceBlock } from './block-text.js';
import { WORKSPACE_FILES } from '../workspace/layout.js';
import type { SettleBlock } from './kept-step-plan.js';

/** One turn's blocks to bring in line: every block ever written for it, and the one that should stand. */
export interface BlockRewrite {
  readonly candidates: readonly SettleBlock[];
  /** Undefined: the turn has no block any more (it was removed from the chat). */
  readonly desired: SettleBlock | undefined;
}

// How many times the rewrite re-reads the workspace after a concurrent save.
const ATTEMPTS = 5;

/**
 * Rewrites the files so each turn's record is its desired block: in place of the block that
 * stands there now (so the record keeps the chat's order), and other blocks of the turn removed.
 * A file that never held the turn's block gets the desired block appended only when the turn is
 * still on record in `history.md` (a block the player deleted by hand is not brought back; a
 * block the player edited is theirs and is left alone). Pure.
 * @param files - the workspace files
 * @param rewrites - per turn
 * @returns the files that change, with their new content
 */
export function rewriteBlocks(files: Readonly<Record<string, string>>, rewrites: readonly BlockRewrite[]): Record<string, string> {
  const next: Record<string, string> = {};
  // Line-ended, so the file's last block is found even after a save that dropped the last line
  // break; a file whose only change would be that line break is not written.
  const read = (path: string) => next[path] ?? asLineEnded(files[path] ?? '');
  for (const { candidates, desired } of rewrites) {
    const paths = new Set([...candidates.flatMap((block) => Object.keys(block.appends)), ...Object.keys(desired?.appends ?? {})]);
    const onRecord = candidates.some((block) => {
      const text = block.appends[WORKSPACE_FILES.history];
      return text !== undefined && findBlock(read(WORKSPACE_FILES.history), blockText(block.marker, text)) !== undefined;
    });
    for (const path of paths) {
      const before = read(path);
      const wanted = desired?.appends[path] === undefined ? undefined : blockText(desired.marker, desired.appends[path]);
      let content = before;
      let placed = wanted !== undefined && findBlock(content, wanted) !== undefined;
      for (const block of candidates) {
        const text = block.appends[path];
        if (text === undefined) continue;
        const current = blockText(block.marker, text);
        if (current === wanted) continue;
        // One lookup: replaceBlock leaves the text as it is when the block is not there.
        const replaced = replaceBlock(content, current, placed || wanted === undefined ? '' : wanted);
        if (replaced === content) continue;
        content = replaced;
        placed = placed || wanted !== undefined;
      }
      if (!placed && wanted !== undefined && onRecord) content = appendSettleBlock(content, desired?.marker ?? '', desired?.appends[path] ?? '');
      if (content !== before) next[path] = content;
    }
  }
  return next;
}

/**
 * Applies {@link rewriteBlocks} to the workspace in one revision, rebased on the latest revision
 * (a player's save in between is kept; the rewrite is computed again on their files).
 * @param trees - the tree store
 * @param workspaceId - the workspace
 * @param rewrites - per turn
 * @returns whether anything changed and the revision after
 */
export async function commitBlockRewrites(trees: TreeStore, workspaceId: string, rewrites: readonly BlockRewrite[]): Promise<{ applied: boolean; revision: number }> {
  for (let attempt = 1; ; attempt++) {
    const snapshot = await trees.read(workspaceId);
    const writes = rewriteBlocks(snapshot.files, rewrites);
    if (Object.keys(writes).length === 0) return { applied: false, revision: snapshot.revision };
    try {
      const next = await trees.commit(workspaceId, { baseRevision: snapshot.revision, writes });
      return { applied: true, revision: next.revision };
    } catch (error) {
      if (KernelStorageError.isInstance(error) && error.code === 'TREE_REVISION_CONFLICT' && attempt < ATTEMPTS) continue;
      throw error;
    }
  }
}
