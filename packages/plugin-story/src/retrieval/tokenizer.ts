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
  return term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
