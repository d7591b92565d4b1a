import { inject, injectable } from '@troupe/kernel/di';
import type { StorySettings } from '../plugin-config.js';
import { StoryTokens } from '../story-tokens.js';
import { SourceIndex } from './source-index.js';

/**
 * Search indexes kept per workspace for the life of the harness; a source is re-indexed only when
 * its hash changes. Built by the container; an app may provide its own under
 * `StoryTokens.SourceIndexCache`.
 */
@injectable()
export class SourceIndexCache {
  readonly #indexes = new Map<string, SourceIndex>();
  readonly #chunkChars: number;

  /** @param settings - the plugin settings (snippet size decides the chunk size) */
  constructor(@inject(StoryTokens.Settings) settings: StorySettings) {
    this.#chunkChars = settings.limits.maxSnippetChars;
  }

  /**
   * The index of one workspace, created on first use.
   * @param workspaceId - the workspace
   */
  indexFor(workspaceId: string): SourceIndex {
    let index = this.#indexes.get(workspaceId);
    if (!index) {
      index = new SourceIndex({ chunkChars: this.#chunkChars });
      this.#indexes.set(workspaceId, index);
    }
    return index;
  }
}
