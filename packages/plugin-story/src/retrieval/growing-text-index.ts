import { Bm25Index } from './bm25-index.js';
import { processTerm, tokenize } from './tokenizer.js';

/** A piece of the indexed text, by character offsets. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
}

const SETTLE_LINE = /^<!-- troupe:settle .* -->$/;

/**
 * True for the settle-marker comment lines the store writes before each settled block (they are
 * bookkeeping, not story text: never indexed as content, never shown to a stage).
 * @param line - one line without its line break
 */
export function isSettleMarkerLine(line: string): boolean {
  return line.startsWith('<!-- troupe:settle ') && SETTLE_LINE.test(line);
}

/**
 * A search index over one text that mostly grows at its end (`history.md`, a `knowledge.md`):
 * an update re-indexes only what follows the longest common prefix with the text indexed
 * before, so an appended turn costs its own lines and an edit costs the text after it.
 */
export class GrowingTextIndex {
  readonly #chunkChars: number;
  readonly #index = new Bm25Index([1], { tokenize, processTerm });
  readonly #spans: TextSpan[] = [];
  readonly #keys: string[] = [];
  readonly #spanByKey = new Map<string, TextSpan>();
  #text = '';
  #nextKey = 0;
  #charsIndexed = 0;

  /** @param chunkChars - longest indexed piece */
  constructor(chunkChars: number) {
    this.#chunkChars = chunkChars;
  }

  /** Characters (re)indexed since creation (for tests and benchmarks). */
  get charsIndexed(): number {
    return this.#charsIndexed;
  }

  /**
   * Brings the index in line with `text`.
   * @param text - the whole text now
   */
  update(text: string): void {
    if (text === this.#text) return;
    const prefix = commonPrefixLength(this.#text, text);
    let keep = this.#spans.length;
    while (keep > 0 && this.#spans[keep - 1]!.end > prefix) keep--;
    for (const key of this.#keys.splice(keep)) {
      this.#index.remove(key);
      this.#spanByKey.delete(key);
    }
    this.#spans.length = keep;
    const from = keep > 0 ? this.#spans[keep - 1]!.end : 0;
    for (const span of chunkSpans(text, from, this.#chunkChars)) {
      const key = String(this.#nextKey++);
      const piece = text.slice(span.start, span.end);
      this.#index.add(key, [piece]);
      this.#charsIndexed += piece.length;
      this.#spans.push(span);
      this.#keys.push(key);
      this.#spanByKey.set(key, span);
    }
    this.#text = text;
  }

  /**
   * The pieces of the indexed text that best match `query` and end at or before `before`.
   * @param query - any text
   * @param before - only pieces ending at or before this offset
   * @param limit - most pieces
   * @returns spans by descending relevance
   */
  search(query: string, before: number, limit: number): TextSpan[] {
    return this.#index.search(query, limit, (key) => (this.#spanByKey.get(key)?.end ?? Number.POSITIVE_INFINITY) <= before).map((hit) => this.#spanByKey.get(hit.key)!);
  }
}

// The fast path is an append (`b` starts with `a`); otherwise compare in blocks, then by character.
function commonPrefixLength(a: string, b: string): number {
  if (b.length >= a.length && b.startsWith(a)) return a.length;
  const limit = Math.min(a.length, b.length);
  let at = 0;
  const BLOCK = 4096;
  while (at + BLOCK <= limit && a.slice(at, at + BLOCK) === b.slice(at, at + BLOCK)) at += BLOCK;
  while (at < limit && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

// Pieces of whole lines, at most `maxChars` (a longer line is cut), a settle marker starting a new
// piece, so one settled turn is usually one piece.
function chunkSpans(text: string, from: number, maxChars: number): TextSpan[] {
  const spans: TextSpan[] = [];
  let start = -1;
  let end = from;
  const emit = () => {
    if (start >= 0 && end > start) spans.push({ start, end });
    start = -1;
  };
  for (let at = from; at < text.length; ) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline < 0 ? text.length : newline + 1;
    const line = text.slice(at, newline < 0 ? text.length : newline);
    if (isSettleMarkerLine(line)) {
      emit();
    } else if (line.trim() !== '') {
      if (start >= 0 && lineEnd - start > maxChars) emit();
      for (let piece = at; piece < lineEnd; piece += maxChars) {
        const pieceEnd = Math.min(lineEnd, piece + maxChars);
        if (start >= 0 && pieceEnd - start > maxChars) emit();
        if (start < 0) start = piece;
        end = pieceEnd;
      }
    }
    at = lineEnd;
  }
  emit();
  return spans;
}
