import { Bm25Index } from './bm25-index.js';
import { chunkMarkdown } from './chunk-markdown.js';
import { capSnippets, DEFAULT_RETRIEVAL_LIMITS, type RetrievalLimits, type Snippet } from './snippet.js';
import { processTerm, queryTerms, tokenize } from './tokenizer.js';

/** A source document to index. */
export interface IndexSource {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

interface ChunkDocument {
  readonly id: string;
  readonly sourceId: string;
  readonly title: string;
  readonly heading: string;
  readonly text: string;
  readonly line: number;
}

/** Counters that show when work was (not) done. */
export interface SourceIndexStats {
  /** How many times a source was (re)chunked and indexed. */
  readonly sourcesIndexed: number;
  /** Chunks currently searchable. */
  readonly chunks: number;
}

/** Longest query text used (characters); the most recent text wins. */
const MAX_QUERY_CHARS = 4000;
// Field boosts (title, heading, text), as before with MiniSearch.
const FIELD_BOOSTS = [2, 1.5, 1] as const;

/**
 * A BM25+ index over a workspace's sources, chunked by Markdown headings, tokenised for Chinese
 * and English. A source is re-indexed only when its title or text changed (compared as strings:
 * an unchanged turn hashes nothing).
 */
export class SourceIndex {
  readonly #index = new Bm25Index(FIELD_BOOSTS, { tokenize, processTerm, queryTerms });
  readonly #chunks = new Map<string, ChunkDocument>();
  readonly #sources = new Map<string, { title: string; text: string; docIds: string[] }>();
  readonly #chunkChars: number;
  #sourcesIndexed = 0;

  /** @param options - `chunkChars`: longest indexed chunk (default 600) */
  constructor(options: { readonly chunkChars?: number } = {}) {
    this.#chunkChars = options.chunkChars ?? DEFAULT_RETRIEVAL_LIMITS.maxSnippetChars;
  }

  /** Counters (for tests and benchmarks). */
  get stats(): SourceIndexStats {
    return { sourcesIndexed: this.#sourcesIndexed, chunks: this.#index.size };
  }

  /**
   * Brings the index in line with `sources`: new or changed sources are indexed, missing ones
   * removed, unchanged ones untouched.
   * @param sources - the enabled sources now
   */
  update(sources: readonly IndexSource[]): void {
    const wanted = new Set(sources.map((s) => s.id));
    for (const [id, entry] of this.#sources) {
      if (!wanted.has(id)) {
        this.#discard(entry.docIds);
        this.#sources.delete(id);
      }
    }
    for (const source of sources) {
      const existing = this.#sources.get(source.id);
      if (existing && existing.text === source.text && existing.title === source.title) continue;
      if (existing) this.#discard(existing.docIds);
      const docIds: string[] = [];
      chunkMarkdown(source.text, this.#chunkChars).forEach((chunk, n) => {
        const doc: ChunkDocument = { id: `${source.id}#${n}`, sourceId: source.id, title: source.title, heading: chunk.heading, text: chunk.text, line: chunk.line };
        this.#index.add(doc.id, [doc.title, doc.heading, doc.text]);
        this.#chunks.set(doc.id, doc);
        docIds.push(doc.id);
      });
      this.#sources.set(source.id, { title: source.title, text: source.text, docIds });
      this.#sourcesIndexed += 1;
    }
  }

  /**
   * The best snippets for `query`, capped, ordered by (score desc, source id, line) so the same
   * index and query always give the same result (needed for replay).
   * @param query - player input plus recent conversation
   * @param limits - caps on count, snippet size and total size
   */
  query(query: string, limits: RetrievalLimits = DEFAULT_RETRIEVAL_LIMITS): Snippet[] {
    const text = query.length > MAX_QUERY_CHARS ? query.slice(-MAX_QUERY_CHARS) : query;
    if (!text.trim() || limits.maxSnippets <= 0) return [];
    // A few more than needed, so ties at the cut are ordered by source and line like the rest.
    const hits = this.#index
      .search(text, limits.maxSnippets * 4)
      .map((hit) => ({ score: hit.score, doc: this.#chunks.get(hit.key)! }))
      .sort((a, b) => b.score - a.score || a.doc.sourceId.localeCompare(b.doc.sourceId) || a.doc.line - b.doc.line);
    const snippets = hits.slice(0, limits.maxSnippets * 2).map(({ doc }) => ({
      origin: 'local' as const,
      ref: doc.id,
      title: doc.heading ? `${doc.title} > ${doc.heading}` : doc.title,
      text: doc.text,
    }));
    return capSnippets(snippets, limits);
  }

  #discard(docIds: readonly string[]): void {
    for (const id of docIds) {
      this.#index.remove(id);
      this.#chunks.delete(id);
    }
  }
}
