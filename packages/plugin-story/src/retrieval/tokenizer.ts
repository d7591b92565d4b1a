import { StoryError } from '../errors.js';

let segmenter: Intl.Segmenter | undefined;

/**
 * Tells whether this Node build segments Chinese (full ICU). Small-ICU builds would put a whole
 * Chinese sentence in one token, silently breaking retrieval.
 * @returns true with full ICU (never throws)
 */
export function hasFullIcu(): boolean {
  const words = [...new Intl.Segmenter('zh', { granularity: 'word' }).segment('我们去公会')].filter((s) => s.isWordLike);
  return words.length > 1;
}

/**
 * Splits text into word-like terms: Chinese by ICU word segmentation, Latin-script by words.
 * @param text - any text
 * @returns the terms (not yet normalised)
 * @throws {StoryError} STORY_RETRIEVAL_UNAVAILABLE on a Node build without full ICU
 */
export function tokenize(text: string): string[] {
  if (!segmenter) {
    if (!hasFullIcu()) throw new StoryError('STORY_RETRIEVAL_UNAVAILABLE', 'This Node.js build lacks full ICU, so Chinese text cannot be segmented for retrieval');
    segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
  }
  const terms: string[] = [];
  // ICU word segmentation slows down badly on long single inputs: segment bounded pieces, cut
  // after a space or punctuation mark so no word is split (a piece without one is cut hard).
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    for (const segment of segmenter.segment(start === 0 && end === text.length ? text : text.slice(start, end))) if (segment.isWordLike) terms.push(segment.segment);
    start = end;
  }
  return terms;
}

/** Longest text one `Intl.Segmenter` call gets (characters). */
export const MAX_SEGMENT_CHARS = 1024;

const BREAK = /[\s\p{P}]/u;

function pieceEnd(text: string, start: number): number {
  const limit = start + MAX_SEGMENT_CHARS;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start + MAX_SEGMENT_CHARS / 2; at--) if (BREAK.test(text[at - 1]!)) return at;
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/**
 * Normalises a term: NFKD, accents stripped, lower case (`Café` matches `cafe`).
 * @param term - one token
 * @returns the normalised term (never throws)
 */
export function processTerm(term: string): string {
  // NFKD leaves ASCII as it is and ASCII has no combining marks: only the case changes.
  return isAscii(term) ? term.toLowerCase() : term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function isAscii(text: string): boolean {
  for (let at = 0; at < text.length; at++) if (text.charCodeAt(at) > 0x7f) return false;
  return true;
}

// Query texts analysed lately. One turn searches with the same few texts several times (the
// sources and the public history with the recent messages plus the input, every character's
// knowledge with the input): each is segmented once. Keys are whole query texts, so few.
const QUERY_MEMO_ENTRIES = 8;
const queryMemo = new Map<string, ReadonlyMap<string, number>>();

/**
 * The normalised terms of a query with how often each occurs ({@link tokenize}, then
 * {@link processTerm}; empty terms dropped), remembered for the last few query texts.
 * @param query - any text
 * @returns term → occurrences, in first-occurrence order (shared: callers must not change it)
 * @throws {StoryError} STORY_RETRIEVAL_UNAVAILABLE like {@link tokenize}
 */
export function queryTerms(query: string): ReadonlyMap<string, number> {
  const known = queryMemo.get(query);
  if (known) return known;
  const terms = new Map<string, number>();
  for (const raw of tokenize(query)) {
    const term = processTerm(raw);
    if (term) terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  if (queryMemo.size >= QUERY_MEMO_ENTRIES) queryMemo.delete(queryMemo.keys().next().value as string);
  queryMemo.set(query, terms);
  return terms;
}
