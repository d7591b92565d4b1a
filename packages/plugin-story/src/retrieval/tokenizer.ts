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
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) terms.push(segment.segment);
  return terms;
}

/**
 * Normalises a term: NFKD, accents stripped, lower case (`Café` matches `cafe`).
 * @param term - one token
 * @returns the normalised term (never throws)
 */
export function processTerm(term: string): string {
  return term.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}
