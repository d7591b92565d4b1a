import { parseRegexKey } from './regex-key.js';

/** How plain keys are compared with the scanned text. */
export interface MatchOptions {
  readonly caseSensitive: boolean;
  readonly matchWholeWords: boolean;
}

// Scripts written without spaces between words: a whole-word rule cannot ask for a boundary
// next to these, or no Chinese or Japanese key would ever match inside a sentence.
const UNSPACED_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}\\p{Script=Tibetan}\\u3000-\\u303f\\uff00-\\uffef';
const UNSPACED = new RegExp(`[${UNSPACED_CLASS}]`, 'u');
const WORD = /[\p{L}\p{N}\p{M}_]/u;
// A maximal run of word characters as `isWordChar` defines them (letters, digits, marks, `_`,
// outside the unspaced scripts).
const WORD_RUN_SOURCE = `[[\\p{L}\\p{N}\\p{M}_]--[${UNSPACED_CLASS}]]+`;
const SINGLE_WORD = new RegExp(`^${WORD_RUN_SOURCE}$`, 'v');

/**
 * The distinct words of a text (maximal runs of word characters). A key that is one such word
 * occurs as a whole word exactly when it is in this set, so a scan can look keys up instead of
 * searching the text once per key.
 * @param text - any text
 * @returns the set of words
 */
export function wordsOf(text: string): Set<string> {
  return new Set(text.match(new RegExp(WORD_RUN_SOURCE, 'gv')) ?? []);
}

/**
 * True when a key is a single word (only word characters), so {@link wordsOf} decides a
 * whole-word match for it.
 * @param key - a plain key
 */
export function isSingleWord(key: string): boolean {
  return SINGLE_WORD.test(key);
}
const ASCII_WORD = /[A-Za-z0-9_]/;

function isWordChar(char: string | undefined): boolean {
  if (char === undefined) return false;
  // Fast path for ASCII, the common case in a scan.
  if (char.length === 1 && char.charCodeAt(0) < 128) return ASCII_WORD.test(char);
  return WORD.test(char) && !UNSPACED.test(char);
}

function codePointBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) return text.slice(index - 2, index);
  return text[index - 1];
}

function codePointAt(text: string, index: number): string | undefined {
  const point = text.codePointAt(index);
  return point === undefined ? undefined : String.fromCodePoint(point);
}

/** A plain key prepared once: its folded form and which sides need a word boundary. */
export interface PreparedKey {
  readonly folded: string;
  readonly multiword: boolean;
  /** Only word characters: a whole-word match is a lookup in the text's words. */
  readonly singleWord: boolean;
  /** Same for the folded form. */
  readonly foldedSingleWord: boolean;
  readonly needsStart: boolean;
  readonly needsEnd: boolean;
  readonly foldedNeedsStart: boolean;
  readonly foldedNeedsEnd: boolean;
}

const prepared = new Map<string, PreparedKey>();
const PREPARED_LIMIT = 8192;

/**
 * A plain key's folded form and word structure, computed once per key text (bounded cache).
 * @param key - a plain (non-regex) key
 * @returns the prepared key
 */
export function prepareKey(key: string): PreparedKey {
  const cached = prepared.get(key);
  if (cached) return cached;
  const folded = key.toLowerCase();
  const value: PreparedKey = {
    folded,
    multiword: /\s/.test(key),
    singleWord: SINGLE_WORD.test(key),
    foldedSingleWord: SINGLE_WORD.test(folded),
    needsStart: isWordChar(codePointAt(key, 0)),
    needsEnd: isWordChar(codePointBefore(key, key.length)),
    foldedNeedsStart: isWordChar(codePointAt(folded, 0)),
    foldedNeedsEnd: isWordChar(codePointBefore(folded, folded.length)),
  };
  if (prepared.size >= PREPARED_LIMIT) prepared.clear();
  prepared.set(key, value);
  return value;
}

/**
 * True when `needle` occurs in `haystack` as a whole word: the characters on each side are not
 * letters or digits. A side whose key character is Chinese/Japanese (unspaced scripts) needs no
 * boundary, and an unspaced neighbour counts as one — so `龙` matches in `一条龙在飞` and `AI`
 * matches in `我喜欢AI技术`, while `cat` does not match in `category`.
 */
function includesWholeWord(haystack: string, needle: string, needsStart: boolean, needsEnd: boolean): boolean {
  let from = 0;
  for (;;) {
    const index = haystack.indexOf(needle, from);
    if (index === -1) return false;
    const startOk = !needsStart || !isWordChar(codePointBefore(haystack, index));
    const endOk = !needsEnd || !isWordChar(codePointAt(haystack, index + needle.length));
    if (startOk && endOk) return true;
    from = index + 1;
  }
}

/**
 * SillyTavern's key matching: a `/regex/flags` key is tested as a regex (its own flags decide
 * case); a plain key is compared after lower-casing both sides unless case-sensitive; with whole
 * words on, a single-word key needs word boundaries while a key with spaces is a plain substring.
 * @param haystack - the text to scan, as written (regex keys see this)
 * @param key - the key, trimmed
 * @param options - case sensitivity and whole-word matching
 * @param foldedHaystack - the lower-cased haystack, computed once per scan by the caller
 * @returns whether the key is present
 */
export function matchKey(haystack: string, key: string, options: MatchOptions, foldedHaystack?: string): boolean {
  if (key === '') return false;
  const regex = parseRegexKey(key);
  if (regex) return regex.test(haystack);
  const keyInfo = prepareKey(key);
  const text = options.caseSensitive ? haystack : (foldedHaystack ?? haystack.toLowerCase());
  const needle = options.caseSensitive ? key : keyInfo.folded;
  if (!options.matchWholeWords || keyInfo.multiword) return text.includes(needle);
  return options.caseSensitive
    ? includesWholeWord(text, needle, keyInfo.needsStart, keyInfo.needsEnd)
    : includesWholeWord(text, needle, keyInfo.foldedNeedsStart, keyInfo.foldedNeedsEnd);
}
