/** One web search result. */
export interface WebSearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/** Options of {@link WebSearchProvider.search}. */
export interface WebSearchOptions {
  /** Cancels the request; the search then rejects with the abort reason. */
  readonly signal: AbortSignal;
  /** Most results wanted. */
  readonly limit: number;
}

/**
 * The story pipeline's optional web search port (the seed's "DSH Web Provider"). A failure removes
 * only the web results; local retrieval and the turn go on.
 */
export interface WebSearchProvider {
  /** Stable id, e.g. `searxng`. */
  readonly id: string;
  /**
   * @param query - the search text
   * @param options - signal and limit
   * @throws {StoryError} STORY_WEB_SEARCH_FAILED; the abort reason when cancelled
   */
  search(query: string, options: WebSearchOptions): Promise<readonly WebSearchResult[]>;
}
