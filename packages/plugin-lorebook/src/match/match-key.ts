import { parseRegexKey } from './regex-key.js';

/** How plain keys are compared with the scanned text. */
export interface MatchOptions {
  readonly caseSensitive: boolean;
  readonly matchWholeWords: boolean;
}

// SillyTavern's whole-word rule is `(?:^|\W)key(?:$|\W)` on a regex without the `u` flag, where
// \W is every character except ASCII letters, digits and `_`. So only those are word characters:
// any other character — punctuation, a space, a Korean, Cyrillic, accented or Chinese letter — is
// a boundary, and books written against SillyTavern match the same way here.
const WORD_CHAR = /[A-Za-z0-9_]/;
const WORD_RUN = /[A-Za-z0-9_]+/g;
const SINGLE_WORD = /^[A-Za-z0-9_]+$/;

/**
 * The distinct words of a text (maximal runs of ASCII word characters). A key that is one such
 * word occurs as a whole word exactly when it is in this set, so a scan can look keys up instead
 * of searching the text once per key.
 * @param text - any text
 * @returns the set of words
 */
export function wordsOf(text: string): Set<string> {
  return new Set(text.match(WORD_RUN) ?? []);
}

/**
 * True when a key is a single word (only ASCII word characters), so {@link wordsOf} decides a
 * whole-word match for it.
 * @param key - a plain key
 */
export function isSingleWord(key: string): boolean {
  return SINGLE_WORD.test(key);
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}

/** A plain key prepared once: its folded form and word structure. */
export interface PreparedKey {
  readonly folded: string;
  readonly multiword: boolean;
  /** Only word characters: a whole-word match is a lookup in the text's words. */
  readonly singleWord: boolean;
  /** Same for the folded form. */
  readonly foldedSingleWord: boolean;
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
  // ST: `key.split(/\s+/).length > 1` — a (trimmed) key with whitespace inside is a substring.
  const value: PreparedKey = { folded, multiword: /\s/.test(key), singleWord: SINGLE_WORD.test(key), foldedSingleWord: SINGLE_WORD.test(folded) };
  if (prepared.size >= PREPARED_LIMIT) prepared.clear();
  prepared.set(key, value);
  return value;
}

/**
 * True when `needle` occurs in `haystack` as a whole word: the characters on each side (whatever
 * the key's own first and last characters are) are not ASCII word characters, or are the ends of
 * the text — SillyTavern's `(?:^|\W)key(?:$|\W)`. So `민수` matches in `민수가`, `caf` in `café`
 * and `龙` in `一条龙在飞`, while `cat` does not match in `category` nor `Mr.` in `Mr.Smith`.
 */
function includesWholeWord(haystack: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const index = haystack.indexOf(needle, from);
    if (index === -1) return false;
    // Code units are enough: a surrogate is not an ASCII word character, nor is its pair.
    if (!isWordChar(haystack[index - 1]) && !isWordChar(haystack[index + needle.length])) return true;
    from = index + 1;
  }
}

/**
 * SillyTavern's key matching: a `/regex/flags` key is tested as a regex (its own flags decide
 * case); a plain key is compared after lower-casing both sides unless case-sensitive; with whole
 * words on, a key without spaces needs a non-ASCII-word character (or the text's end) on each
 * side while a key with spaces is a plain substring.
 * @param haystack - the text to scan, as written (regex keys see this)
 * @param key - the key, trimmed
 * @param options - case sensitivity and whole-word matching
 * @param foldedHaystack - the lower-cased haystack, computed once per scan by the caller
 * @returns whether the key is present
 */
export function matchKey(haystack: string, key: string, options: MatchOptions, foldedHaystack?: string): boolean {
  if (key === '') return false;
  const regex = parseRegexKey(key);
  if (regex) {
    // A sticky (`y`) key is cached: start every test at the beginning, as ST's fresh regex does.
    regex.lastIndex = 0;
    return regex.test(haystack);
  }
  const keyInfo = prepareKey(key);
  const text = options.caseSensitive ? haystack : (foldedHaystack ?? haystack.toLowerCase());
  const needle = options.caseSensitive ? key : keyInfo.folded;
  if (!options.matchWholeWords || keyInfo.multiword) return text.includes(needle);
  return includesWholeWord(text, needle);
}
