import type { TreeSettlement } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { appendSettleBlock } from '@troupe/kernel/storage';
import type { StorySettings } from '../plugin-config.js';
import { StoryTokens } from '../story-tokens.js';
import { GrowingTextIndex } from './growing-text-index.js';
import { SourceIndex } from './source-index.js';

/** Most workspaces whose indexes are kept; the least recently used one is dropped beyond it. */
export const MAX_CACHED_WORKSPACES = 16;

interface WorkspaceIndexes {
  readonly sources: SourceIndex;
  /** Growing documents (`history.md`, each `knowledge.md`) by path. */
  readonly documents: Map<string, GrowingTextIndex>;
}

/**
 * Search indexes kept per workspace: the sources' index (a source is re-indexed only when its
 * text changes) and one index per growing document (public history, each character's
 * knowledge), re-indexed only past what changed. At most {@link MAX_CACHED_WORKSPACES}
 * workspaces are kept (least recently used dropped; a dropped workspace is re-indexed on its
 * next turn). Built by the container; an app may provide its own under
 * `StoryTokens.SourceIndexCache`.
 */
@injectable()
export class SourceIndexCache {
  readonly #workspaces = new Map<string, WorkspaceIndexes>();
  readonly #chunkChars: number;
  /** The most recently used workspace (last in `#workspaces`). */
  #newest: { readonly id: string; readonly entry: WorkspaceIndexes } | undefined;

  /** @param settings - the plugin settings (snippet size decides the chunk size) */
  constructor(@inject(StoryTokens.Settings) settings: StorySettings) {
    this.#chunkChars = settings.limits.maxSnippetChars;
  }

  /** Workspaces whose indexes are held now. */
  get size(): number {
    return this.#workspaces.size;
  }

  /**
   * The sources' index of one workspace, created on first use.
   * @param workspaceId - the workspace
   */
  indexFor(workspaceId: string): SourceIndex {
    return this.#entry(workspaceId).sources;
  }

  /**
   * The index of one growing document of a workspace, created on first use.
   * @param workspaceId - the workspace
   * @param path - the document's path (`history.md`, `characters/<id>/knowledge.md`)
   */
  documentIndexFor(workspaceId: string, path: string): GrowingTextIndex {
    const { documents } = this.#entry(workspaceId);
    let index = documents.get(path);
    if (!index) {
      index = new GrowingTextIndex(this.#chunkChars);
      documents.set(path, index);
    }
    return index;
  }

  /**
   * Tells the growing documents' indexes what an applied settlement appended, so the next turn
   * takes the documents at that revision without reading them (see {@link GrowingTextIndex.appended}).
   * An index not at the revision before is left to compare on its next turn.
   * @param workspaceId - the workspace settled
   * @param settlement - the settlement the store applied
   * @param revision - the revision the store reported for it
   */
  settled(workspaceId: string, settlement: TreeSettlement, revision: number): void {
    const entry = this.#workspaces.get(workspaceId);
    if (!entry) return;
    for (const [path, index] of entry.documents) {
      const text = settlement.appends[path];
      // The exact characters the store appends (its own rule): a line break first when needed.
      const suffix = text === undefined ? '' : `${index.endsWithLineBreak === false ? '\n' : ''}${appendSettleBlock('', settlement.marker, text)}`;
      index.appended(revision, suffix);
    }
  }

  #entry(workspaceId: string): WorkspaceIndexes {
    // A turn asks for the same workspace's indexes several times: the newest needs no reordering
    // (a delete and re-insert per call churns the Map's table).
    if (this.#newest?.id === workspaceId) return this.#newest.entry;
    let entry = this.#workspaces.get(workspaceId);
    if (entry) {
      // Most recently used last (a Map keeps insertion order).
      this.#workspaces.delete(workspaceId);
    } else {
      entry = { sources: new SourceIndex({ chunkChars: this.#chunkChars }), documents: new Map() };
      if (this.#workspaces.size >= MAX_CACHED_WORKSPACES) this.#workspaces.delete(this.#workspaces.keys().next().value as string);
    }
    this.#workspaces.set(workspaceId, entry);
    this.#newest = { id: workspaceId, entry };
    return entry;
  }
}
