/** A bounded piece of reference text handed to the research worker. */
export interface Snippet {
  /**
   * `local` (a workspace source), `world-info` (a lorebook entry activated this turn: public
   * material, like the player's own sources) or `web` (the web search provider).
   */
  readonly origin: 'local' | 'world-info' | 'web';
  /** `sourceId#chunk` for local snippets, `<book>.<uid>` for world info, the URL for web results. */
  readonly ref: string;
  readonly title: string;
  readonly text: string;
}

/** Caps on retrieval output. */
export interface RetrievalLimits {
  /** Most snippets returned (default 6). */
  readonly maxSnippets: number;
  /** Longest snippet in characters (default 600; longer ones are clipped). */
  readonly maxSnippetChars: number;
  /** Most characters over all snippets (default 3000). */
  readonly maxTotalChars: number;
}

/** Default retrieval caps. */
export const DEFAULT_RETRIEVAL_LIMITS: RetrievalLimits = Object.freeze({ maxSnippets: 6, maxSnippetChars: 600, maxTotalChars: 3000 });

/**
 * Applies the caps in order: clip each snippet, stop at the count or total budget.
 * @param snippets - ranked snippets (for retrieval: local first, then web)
 * @param limits - the caps
 * @returns at most `maxSnippets` snippets, each at most `maxSnippetChars`, together at most
 *   `maxTotalChars` characters (never throws)
 */
export function capSnippets(snippets: readonly Snippet[], limits: RetrievalLimits): Snippet[] {
  const out: Snippet[] = [];
  let total = 0;
  for (const snippet of snippets) {
    if (out.length >= limits.maxSnippets) break;
    const text = snippet.text.length > limits.maxSnippetChars ? `${snippet.text.slice(0, limits.maxSnippetChars - 1)}…` : snippet.text;
    if (total + text.length > limits.maxTotalChars) break;
    total += text.length;
    out.push({ ...snippet, text });
  }
  return out;
}
