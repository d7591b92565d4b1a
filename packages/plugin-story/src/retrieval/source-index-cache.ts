import { inject, injectable } from '@troupe/kernel/di';
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

  #entry(workspaceId: string): WorkspaceIndexes {
    let entry = this.#workspaces.get(workspaceId);
    if (entry) {
      // Most recently used last (a Map keeps insertion order).
      this.#workspaces.delete(workspaceId);
    } else {
      entry = { sources: new SourceIndex({ chunkChars: this.#chunkChars }), documents: new Map() };
      if (this.#workspaces.size >= MAX_CACHED_WORKSPACES) this.#workspaces.delete(this.#workspaces.keys().next().value as string);
    }
    this.#workspaces.set(workspaceId, entry);
    return entry;
  }
}
