import { statVouchesForContent } from './racy-stat.js';

/**
 * Most trees whose file contents this process keeps; the least recently used one is dropped
 * beyond it (its next read reads every file again).
 */
export const MAX_TREES_WITH_CONTENTS = 16;
/** Most characters of file contents kept over all trees (a tree bigger than this is not kept). */
export const MAX_CACHED_CONTENT_CHARS = 64 * 1024 * 1024;

/** One file's content as last read, with the stat signature it had then. */
interface CachedFile {
  readonly signature: string;
  readonly content: string;
  /** Whether that signature can vouch for the content (see `statVouchesForContent`). */
  readonly vouched: boolean;
}

/**
 * The file contents of recently read trees, each valid for as long as the file's stat signature
 * is the one it was read with and that signature could vouch for it (a file changed moments
 * before it was read is read again next time). Bounded in trees and in characters: a read of an
 * unchanged workspace opens no file, and a server with many workspaces keeps only the recent ones.
 */
export class TreeContentsCache {
  readonly #trees = new Map<string, Map<string, CachedFile>>();
  #chars = 0;

  /**
   * The content of a file, when the cache holds it for exactly this signature and may trust it.
   * @param treeId - the tree
   * @param path - the file
   * @param signature - the file's stat signature now (from a scan)
   * @returns the content, or undefined when the file must be read
   */
  get(treeId: string, path: string, signature: string): string | undefined {
    const file = this.#trees.get(treeId)?.get(path);
    return file?.vouched && file.signature === signature ? file.content : undefined;
  }

  /**
   * Whether the cache holds a vouched-for content of a file (whatever its signature).
   * @param treeId - the tree
   * @param path - the file
   * @returns true when a stat of the file may spare reading it
   */
  has(treeId: string, path: string): boolean {
    return this.#trees.get(treeId)?.get(path)?.vouched === true;
  }

  /**
   * Replaces what the cache holds for a tree by the files as just read (the most recently used
   * tree from now on); older trees are dropped beyond the bounds.
   * @param treeId - the tree
   * @param files - path → the signature from the scan before the read, and the content read
   * @param scanStartedAt - `Date.now()` taken before that scan
   */
  remember(treeId: string, files: ReadonlyMap<string, { readonly signature: string; readonly content: string }>, scanStartedAt: number): void {
    this.forget(treeId);
    let chars = 0;
    const kept = new Map<string, CachedFile>();
    for (const [path, { signature, content }] of files) {
      chars += content.length;
      kept.set(path, { signature, content, vouched: statVouchesForContent(signature, scanStartedAt) });
    }
    if (chars > MAX_CACHED_CONTENT_CHARS) return;
    this.#trees.set(treeId, kept);
    this.#chars += chars;
    while (this.#trees.size > MAX_TREES_WITH_CONTENTS || this.#chars > MAX_CACHED_CONTENT_CHARS) {
      const oldest = this.#trees.keys().next().value as string;
      this.forget(oldest);
    }
  }

  /**
   * Drops a tree's contents (it was deleted, or its files are about to be replaced).
   * @param treeId - the tree
   */
  forget(treeId: string): void {
    const files = this.#trees.get(treeId);
    if (!files) return;
    for (const file of files.values()) this.#chars -= file.content.length;
    this.#trees.delete(treeId);
  }
}
