import { type MatchOptions, matchKey, prepareKey, wordsOf } from './match/match-key.js';
import { parseRegexKey } from './match/regex-key.js';
import { SCAN_SOURCES, type WorldInfoScanData, type WorldInfoScanSource } from './scan-sources.js';

/**
 * SillyTavern's `WorldInfoBuffer.get` starts every message (and every recursion text) with this
 * character and joins them with a newline, so a regex key anchored with `^` never matches a
 * message's first word. It is not an ASCII word character, so for whole-word matching it is a
 * boundary like the start of the text; no plain key contains it.
 */
export const MESSAGE_MARKER = '\x01';

interface Memo {
  found: boolean;
  checked: number;
}

/**
 * The text one entry is matched against: the newest messages up to a depth, then the recursion
 * texts, each starting with {@link MESSAGE_MARKER}, joined by newlines. Plain-key results are remembered per part, so a recursive pass only
 * reads the text that pass added (a plain key cannot span the newline between two parts).
 */
export class ScanText {
  readonly #parts: string[] = [];
  readonly #folded: string[] = [];
  // Per part, built on first use: its words as written and lower-cased.
  readonly #words: (Set<string> | undefined)[] = [];
  readonly #foldedWords: (Set<string> | undefined)[] = [];
  #joined: string | undefined;
  // Per options (case × whole words): key → whether found, and in how many parts it was looked for.
  readonly #memo = [new Map<string, Memo>(), new Map<string, Memo>(), new Map<string, Memo>(), new Map<string, Memo>()];

  /**
   * @param parts - the first parts (the joined messages)
   */
  constructor(parts: readonly string[]) {
    for (const part of parts) this.add(part);
  }

  /**
   * Appends a part (recursion text).
   * @param part - text
   */
  add(part: string): void {
    this.#parts.push(part);
    this.#folded.push(part.toLowerCase());
    this.#joined = undefined;
  }

  #wordsOf(index: number, caseSensitive: boolean): Set<string> {
    const cache = caseSensitive ? this.#words : this.#foldedWords;
    let words = cache[index];
    if (words === undefined) {
      words = wordsOf((caseSensitive ? this.#parts : this.#folded)[index] ?? '');
      cache[index] = words;
    }
    return words;
  }

  /** The whole text, as ST scans it. */
  get text(): string {
    this.#joined ??= this.#parts.join('\n');
    return this.#joined;
  }

  /**
   * Whether a key is present (see `matchKey`).
   * @param key - the key, trimmed
   * @param options - case sensitivity and whole-word matching
   * @returns true when found
   */
  has(key: string, options: MatchOptions): boolean {
    if (this.#parts.length === 0 || key === '') return false;
    // Regex keys and keys with a newline may span parts: test them on the whole text.
    if (parseRegexKey(key) !== null || key.includes('\n')) return matchKey(this.text, key, options);
    const memos = this.#memo[(options.caseSensitive ? 2 : 0) + (options.matchWholeWords ? 1 : 0)]!;
    let memo = memos.get(key);
    if (memo === undefined) {
      memo = { found: false, checked: 0 };
      memos.set(key, memo);
    }
    // A one-word key under whole-word matching is a set lookup, not a search of the text.
    const prepared = prepareKey(key);
    const byWord = options.matchWholeWords && (options.caseSensitive ? prepared.singleWord : prepared.foldedSingleWord);
    const needle = options.caseSensitive ? key : prepared.folded;
    while (!memo.found && memo.checked < this.#parts.length) {
      const index = memo.checked;
      memo.found = byWord ? this.#wordsOf(index, options.caseSensitive).has(needle) : matchKey(this.#parts[index]!, key, options, this.#folded[index]);
      memo.checked++;
    }
    return memo.found;
  }
}

const EMPTY = new ScanText([]);

/**
 * What a scan reads (ST's WorldInfoBuffer): the newest messages up to a depth, the card and
 * persona fields an entry asks for, plus the content of entries activated in earlier passes once
 * recursion has started. One {@link ScanText} per depth and set of fields in use, so 400 entries
 * with the same scan depth share it.
 */
export class ScanBuffer {
  /** Messages, newest first. */
  readonly #messages: readonly string[];
  readonly #scanData: WorldInfoScanData;
  readonly #recursion: string[] = [];
  readonly #texts = new Map<string, ScanText>();

  /**
   * @param newestFirst - message texts, newest first (the current input at index 0)
   * @param scanData - the chat's card and persona fields
   */
  constructor(newestFirst: readonly string[], scanData: WorldInfoScanData = {}) {
    this.#messages = newestFirst.map((message) => message.trim());
    this.#scanData = scanData;
  }

  /**
   * The text to scan at a depth: the `depth` newest messages, then the named fields (in ST's
   * order, empty ones left out), then the recursion texts — ST's layout
   * `\x01newest\n\x01older…\n\x01field…\n\x01recursion…` (`result += JOINER +
   * globalScanData.personaDescription`, …). Depth 0 scans nothing at all, the fields neither, as
   * in ST (`if (depth <= this.#startDepth) return ''`): such an entry only activates as constant,
   * sticky or by decorator.
   * @param depth - how many messages (capped at 1000)
   * @param sources - the fields to add, in {@link SCAN_SOURCES} order
   * @returns the scan text
   */
  get(depth: number, sources: readonly WorldInfoScanSource[] = []): ScanText {
    const capped = Math.min(Math.max(depth, 0), 1000);
    if (capped === 0) return EMPTY;
    const fields = sources.length === 0 ? [] : SCAN_SOURCES.filter((source) => sources.includes(source) && (this.#scanData[source] ?? '') !== '');
    const key = fields.length === 0 ? String(capped) : `${capped}:${fields.join(',')}`;
    let text = this.#texts.get(key);
    if (!text) {
      const fieldParts = fields.map((source) => MESSAGE_MARKER + (this.#scanData[source] ?? ''));
      text = new ScanText([MESSAGE_MARKER + this.#messages.slice(0, capped).join(`\n${MESSAGE_MARKER}`), ...fieldParts, ...this.#recursion]);
      this.#texts.set(key, text);
    }
    return text;
  }

  /**
   * Adds activated entries' text for the next (recursive) pass.
   * @param text - the joined content of the entries
   */
  addRecursion(text: string): void {
    if (text === '') return;
    const part = MESSAGE_MARKER + text;
    this.#recursion.push(part);
    for (const scan of this.#texts.values()) scan.add(part);
  }
}
