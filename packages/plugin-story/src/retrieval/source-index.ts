import { sha256Hex } from '@troupe/kernel/util';
import MiniSearch from 'minisearch';
import { chunkMarkdown } from './chunk-markdown.js';
import { capSnippets, DEFAULT_RETRIEVAL_LIMITS, type RetrievalLimits, type Snippet } from './snippet.js';
import { processTerm, tokenize } from './tokenizer.js';

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

/**
 * A BM25 (MiniSearch) index over a workspace's sources, chunked by Markdown headings, tokenised
 * for Chinese and English. A source is re-indexed only when its content hash changes.
 */
export class SourceIndex {
  readonly #search: MiniSearch<ChunkDocument>;
  readonly #sources = new Map<string, { hash: string; title: string; docIds: string[] }>();
  readonly #chunkChars: number;
  #sourcesIndexed = 0;

  /** @param options - `chunkChars`: longest indexed chunk (default 600) */
  constructor(options: { readonly chunkChars?: number } = {}) {
    this.#chunkChars = options.chunkChars ?? DEFAULT_RETRIEVAL_LIMITS.maxSnippetChars;
    this.#search = new MiniSearch<ChunkDocument>({
      fields: ['title', 'heading', 'text'],
      storeFields: ['sourceId', 'title', 'heading', 'text', 'line'],
      tokenize,
      processTerm,
      autoVacuum: false,
      searchOptions: { boost: { title: 2, heading: 1.5 }, combineWith: 'OR', tokenize, processTerm },
    });
  }

  /** Counters (for tests and benchmarks). */
  get stats(): SourceIndexStats {
    return { sourcesIndexed: this.#sourcesIndexed, chunks: this.#search.documentCount };
  }

  /**
   * Brings the index in line with `sources`: new or changed (by SHA-256) sources are indexed,
   * missing ones removed, unchanged ones untouched.
   * @param sources - the enabled sources now
   */
  update(sources: readonly IndexSource[]): void {
    const wanted = new Set(sources.map((s) => s.id));
    for (const [id, entry] of this.#sources) {
      if (!wanted.has(id)) {
        this.#search.discardAll(entry.docIds);
        this.#sources.delete(id);
      }
    }
    for (const source of sources) {
      const hash = sha256Hex(`${source.title}\n${source.text}`);
      const existing = this.#sources.get(source.id);
      if (existing?.hash === hash) continue;
      if (existing) this.#search.discardAll(existing.docIds);
      const docs = chunkMarkdown(source.text, this.#chunkChars).map((chunk, n) => ({
        id: `${source.id}#${n}`,
        sourceId: source.id,
        title: source.title,
        heading: chunk.heading,
        text: chunk.text,
        line: chunk.line,
      }));
      this.#search.addAll(docs);
      this.#sources.set(source.id, { hash, title: source.title, docIds: docs.map((d) => d.id) });
      this.#sourcesIndexed += 1;
    }
    if (this.#search.dirtCount > 0 && this.#search.dirtFactor > 0.3) this.#search.vacuum().catch(() => {});
  }

  /**
   * The best snippets for `query`, capped, ordered by (score desc, source id, line) so the same
   * index and query always give the same result (needed for replay).
   * @param query - player input plus recent conversation
   * @param limits - caps on count, snippet size and total size
   */
  query(query: string, limits: RetrievalLimits = DEFAULT_RETRIEVAL_LIMITS): Snippet[] {
    const text = query.length > MAX_QUERY_CHARS ? query.slice(-MAX_QUERY_CHARS) : query;
    if (!text.trim()) return [];
    const hits = this.#search.search(text).sort(
      (a, b) => b.score - a.score || String(a['sourceId']).localeCompare(String(b['sourceId'])) || Number(a['line']) - Number(b['line']),
    );
    const snippets = hits.slice(0, limits.maxSnippets * 2).map((hit) => ({
      origin: 'local' as const,
      ref: String(hit.id),
      title: hit['heading'] ? `${hit['title']} > ${hit['heading']}` : String(hit['title']),
      text: String(hit['text']),
    }));
    return capSnippets(snippets, limits);
  }
}
