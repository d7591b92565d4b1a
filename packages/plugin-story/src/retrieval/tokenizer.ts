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
  // Plain ASCII text (English prose, most settled blocks) is cut here by the same rules ICU
  // applies to it: an `Intl.Segmenter` call costs several microseconds before its first word.
  if (asciiWords(text, terms)) return terms;
  // ICU word segmentation slows down badly on long single inputs: segment bounded pieces, cut
  // after a space or punctuation mark so no word is split (a piece without one is cut hard).
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    for (const segment of segmenter.segment(start === 0 && end === text.length ? text : text.slice(start, end))) if (segment.isWordLike) terms.push(segment.segment);
    start = end;
  }
  return terms;
}

// Character classes of the ASCII word-break rules (Unicode UAX #29) that decide a word's extent.
const OTHER = 0;
const LETTER = 1; // ALetter: A–Z, a–z
const DIGIT = 2; // Numeric: 0–9
const MID_LETTER = 3; // MidLetter ':' — joins letters only
const MID_NUM = 4; // MidNum ',' ';' — joins digits only
const MID_NUM_LET = 5; // MidNumLet '.' and Single_Quote "'" — join letters, and digits
const UNSUPPORTED = 6; // ExtendNumLet '_' and any non-ASCII character: left to ICU
const ASCII_CLASS = new Uint8Array(128);
for (let code = 65; code <= 90; code++) ASCII_CLASS[code] = LETTER;
for (let code = 97; code <= 122; code++) ASCII_CLASS[code] = LETTER;
for (let code = 48; code <= 57; code++) ASCII_CLASS[code] = DIGIT;
ASCII_CLASS[0x3a] = MID_LETTER;
ASCII_CLASS[0x2c] = MID_NUM;
ASCII_CLASS[0x3b] = MID_NUM;
ASCII_CLASS[0x2e] = MID_NUM_LET;
ASCII_CLASS[0x27] = MID_NUM_LET;
ASCII_CLASS[0x5f] = UNSUPPORTED;

function classOf(code: number): number {
  return code < 128 ? ASCII_CLASS[code]! : UNSUPPORTED;
}

/**
 * The word-like segments ICU gives for a text of ASCII letters, digits, punctuation and spaces
 * (no `_`), pushed onto `terms`; false (and nothing pushed) for any other text. For those
 * characters the word-break rules reduce to: letters and digits in a row form one word (WB5,
 * WB8–WB10), and one `:` `.` `'` between two letters (WB6/WB7) or one `,` `;` `.` `'` between two
 * digits (WB11/WB12) keeps the word going; everything else is a break and no word.
 * The test suite checks this against `Intl.Segmenter` on every short string of these classes.
 */
function asciiWords(text: string, terms: string[]): boolean {
  const length = text.length;
  for (let at = 0; at < length; at++) if (classOf(text.charCodeAt(at)) === UNSUPPORTED) return false;
  let start = -1;
  for (let at = 0; at < length; at++) {
    const kind = ASCII_CLASS[text.charCodeAt(at)]!;
    if (kind === LETTER || kind === DIGIT) {
      if (start < 0) start = at;
      continue;
    }
    if (start < 0) continue;
    if (kind !== OTHER && at + 1 < length) {
      const before = ASCII_CLASS[text.charCodeAt(at - 1)]!;
      const after = ASCII_CLASS[text.charCodeAt(at + 1)]!;
      if (before === after && (before === LETTER ? kind !== MID_NUM : before === DIGIT && kind !== MID_LETTER)) continue;
    }
    terms.push(text.slice(start, at));
    start = -1;
  }
  if (start >= 0) terms.push(start === 0 ? text : text.slice(start));
  return true;
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
