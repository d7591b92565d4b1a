import { Bm25Index } from './bm25-index.js';
import { ownString } from './own-string.js';
import { processTerm, queryTerms, tokenize } from './tokenizer.js';

/** One indexed piece of a growing document: its place and its story text. */
export interface IndexedPiece {
  /** Character offsets in the document. */
  readonly start: number;
  readonly end: number;
  /** Its non-blank lines (settle markers are never inside a piece), own copy. */
  readonly text: string;
  /** Position in {@link GrowingTextIndex.pieces} (document order). */
  readonly ordinal: number;
  /** How many settle markers come before it: pieces of one settled block share it. */
  readonly block: number;
}

// `\r?`: a file checked out with CRLF line endings keeps a carriage return at each line's end.
const SETTLE_LINE = /^<!-- troupe:settle .* -->\r?$/;

/**
 * True for the settle-marker comment lines the store writes before each settled block (they are
 * bookkeeping, not story text: never indexed as content, never shown to a stage).
 * @param line - one line without its line feed (a carriage return before it may stay)
 */
export function isSettleMarkerLine(line: string): boolean {
  return line.startsWith('<!-- troupe:settle ') && SETTLE_LINE.test(line);
}

// A journal tail longer than this is not kept: such a document (a long text without settle
// markers) is compared on its next turn instead of being extended in place.
const MAX_TAIL_CHARS = 64 * 1024;

/**
 * A search index over one text that mostly grows at its end (`history.md`, a `knowledge.md`).
 * The text is cut into pieces of whole lines (a settle marker line ends a piece), and an update
 * re-indexes only from the last settle marker before the first changed character — the piece
 * cutting is restarted only at a marker, so the pieces always equal those of a fresh build of
 * the same text, whatever changed (an append, an edit in the middle, a truncation).
 *
 * Two ways to learn the text: {@link update} compares it with the text indexed before (one
 * comparison of the common part), and {@link appended} is told what a settlement appended at a
 * revision (the store's contract: an applied settle is exactly one revision and appends exactly
 * its block), so a turn that only settles never reads or compares the whole document; the next
 * {@link update} at that revision with that length takes the text as it is.
 */
export class GrowingTextIndex {
  readonly #chunkChars: number;
  readonly #index = new Bm25Index([1], { tokenize, processTerm, queryTerms });
  readonly #pieces: IndexedPiece[] = [];
  readonly #keys: string[] = [];
  readonly #ordinalByKey = new Map<string, number>();
  /** End offsets of the settle-marker lines (a restart point of the piece cutting each). */
  readonly #anchors: number[] = [];
  /** The text last compared or adopted, and what was appended to it since (by `appended`). */
  #text = '';
  #pending: string[] = [];
  #length = 0;
  #revision: number | undefined;
  /** The text from the last anchor on (own copy), or undefined when longer than MAX_TAIL_CHARS. */
  #tail: string | undefined = '';
  #nextKey = 0;
  #charsIndexed = 0;
  #charsCompared = 0;

  /** @param chunkChars - longest indexed piece */
  constructor(chunkChars: number) {
    this.#chunkChars = chunkChars;
  }

  /** Characters (re)indexed since creation (for tests and benchmarks). */
  get charsIndexed(): number {
    return this.#charsIndexed;
  }

  /** Characters compared with an earlier text since creation (for tests and benchmarks). */
  get charsCompared(): number {
    return this.#charsCompared;
  }

  /** Length of the text the index reflects. */
  get length(): number {
    return this.#length;
  }

  /** The pieces, in document order (callers must not change the array). */
  get pieces(): readonly IndexedPiece[] {
    return this.#pieces;
  }

  /** Settle markers in the text. */
  get blocks(): number {
    return this.#anchors.length;
  }

  /**
   * Brings the index in line with `text`.
   * @param text - the whole text now
   * @param revision - the store revision it was read at, when known: a text of the length the
   *   index expects at the revision it expects is taken as it is, without reading it
   */
  update(text: string, revision?: number): void {
    if (revision !== undefined && revision === this.#revision && text.length === this.#length) {
      // Taken as it is: reading or comparing it would cost the whole document.
      this.#adopt(text);
      return;
    }
    const before = this.#pending.length > 0 ? this.#text + this.#pending.join('') : this.#text;
    const prefix = commonPrefixLength(before, text);
    this.#charsCompared += prefix;
    if (prefix === text.length && prefix === before.length) {
      // The same text: a revision unknown to the caller keeps the one known here.
      this.#revision = revision ?? this.#revision;
      this.#adopt(text);
      return;
    }
    this.#revision = revision;
    const { from, dropped } = this.#restartBefore(prefix);
    this.#reindex(text.slice(from), from, dropped);
    this.#adopt(text);
  }

  /**
   * Extends the index by what a settlement appended, without reading the document: applies only
   * when the index reflects the text at `revision - 1` (else the next {@link update} compares).
   * @param revision - the revision the settlement produced
   * @param suffix - the exact characters it appended to this document ('' when it left it alone)
   * @returns whether the index now reflects `revision`
   */
  appended(revision: number, suffix: string): boolean {
    if (this.#revision === undefined || revision !== this.#revision + 1 || (suffix !== '' && this.#tail === undefined)) return false;
    this.#revision = revision;
    if (suffix === '') return true;
    const own = ownString(suffix);
    const offset = this.#length;
    this.#pending.push(own);
    this.#length += suffix.length;
    if (this.endsWithLineBreak === true && startsWithMarkerLine(own)) {
      // A settlement's block after a line break: the marker line ends the last piece where the
      // end of the text ended it, so every piece so far stays as it is (no restart, no re-cut of
      // the last block); only the block itself is cut and indexed.
      this.#reindex(own, offset, []);
      return true;
    }
    const { from, dropped } = this.#restartBefore(offset);
    this.#reindex(`${this.#tail}${own}`, from, dropped);
    return true;
  }

  /**
   * Whether the text the index reflects ends with a line break (or is empty), from the kept
   * tail; undefined when no tail is kept ({@link appended} does not apply then).
   */
  get endsWithLineBreak(): boolean | undefined {
    return this.#tail === undefined ? undefined : this.#tail === '' || this.#tail.endsWith('\n');
  }

  /**
   * The pieces before `before` (an ordinal) that best match `query`.
   * @param query - any text
   * @param before - only pieces with a smaller ordinal
   * @param limit - most pieces
   * @returns pieces by descending relevance
   */
  search(query: string, before: number, limit: number): IndexedPiece[] {
    return this.#index
      .search(query, limit, (key) => (this.#ordinalByKey.get(key) ?? Number.POSITIVE_INFINITY) < before)
      .map((hit) => this.#pieces[this.#ordinalByKey.get(hit.key)!]!);
  }

  // The text now is `text`: remember it, unread (it is the comparison base of the next change;
  // the pieces and the tail already reflect it).
  #adopt(text: string): void {
    this.#text = text;
    this.#pending = [];
    this.#length = text.length;
  }

  // Takes back what the text from the last restart point at or before `prefix` on produced
  // (the pieces are handed to #reindex, which keeps those that come out the same), and returns
  // that point: the end of the last marker line that lies wholly in the unchanged part.
  #restartBefore(prefix: number): { from: number; dropped: { piece: IndexedPiece; key: string }[] } {
    let anchors = this.#anchors.length;
    while (anchors > 0 && this.#anchors[anchors - 1]! > prefix) anchors--;
    this.#anchors.length = anchors;
    const from = anchors > 0 ? this.#anchors[anchors - 1]! : 0;
    let keep = this.#pieces.length;
    while (keep > 0 && this.#pieces[keep - 1]!.start >= from) keep--;
    const keys = this.#keys.splice(keep);
    const dropped = this.#pieces.splice(keep).map((piece, i) => ({ piece, key: keys[i]! }));
    return { from, dropped };
  }

  // Cuts and indexes `region` (the document's text from `offset`, a restart point, to its end);
  // a piece that comes out as one taken back (same place, same text) keeps its index entry.
  #reindex(region: string, offset: number, dropped: readonly { piece: IndexedPiece; key: string }[]): void {
    const { spans, anchors } = chunkSpans(region, this.#chunkChars);
    let block = this.#anchors.length;
    let nextAnchor = 0;
    let same = 0;
    spans.forEach((span, i) => {
      while (nextAnchor < anchors.length && anchors[nextAnchor]! <= span.start) {
        this.#anchors.push(offset + anchors[nextAnchor++]!);
        block++;
      }
      const start = offset + span.start;
      const end = offset + span.end;
      const text = storyLines(region.slice(span.start, span.end));
      const old = dropped[i];
      if (same === i && old && old.piece.start === start && old.piece.end === end && old.piece.block === block && old.piece.text === text) {
        same++;
        this.#pieces.push(old.piece);
        this.#keys.push(old.key);
        return;
      }
      if (same === i) for (const { key } of dropped.slice(same)) this.#forget(key);
      const key = String(this.#nextKey++);
      const own = ownString(text);
      this.#index.add(key, [own]);
      this.#charsIndexed += span.end - span.start;
      this.#ordinalByKey.set(key, this.#pieces.length);
      this.#pieces.push({ start, end, text: own, ordinal: this.#pieces.length, block });
      this.#keys.push(key);
    });
    if (same === spans.length) for (const { key } of dropped.slice(same)) this.#forget(key);
    for (; nextAnchor < anchors.length; nextAnchor++) this.#anchors.push(offset + anchors[nextAnchor]!);
    const last = this.#anchors.at(-1) ?? 0;
    const tailStart = last - offset;
    this.#tail = region.length - tailStart <= MAX_TAIL_CHARS ? ownString(tailStart > 0 ? region.slice(tailStart) : region) : undefined;
  }

  #forget(key: string): void {
    this.#index.remove(key);
    this.#ordinalByKey.delete(key);
  }
}

/**
 * The non-blank lines of a text, settle markers left out, joined by line breaks.
 * @param text - any text
 */
export function storyLines(text: string): string {
  // One pass without the arrays of split/filter/join: this runs for every new piece of every turn.
  let kept = '';
  let any = false;
  for (let at = 0; ; ) {
    const newline = text.indexOf('\n', at);
    const line = newline < 0 ? (at === 0 ? text : text.slice(at)) : text.slice(at, newline);
    if (line.trim() !== '' && !isSettleMarkerLine(line)) {
      kept = any ? `${kept}\n${line}` : line;
      any = true;
    }
    if (newline < 0) return kept;
    at = newline + 1;
  }
}

// Whether `text` begins with a whole settle-marker line (its line break included).
function startsWithMarkerLine(text: string): boolean {
  if (!text.startsWith('<!-- troupe:settle ')) return false;
  const newline = text.indexOf('\n');
  return newline >= 0 && isSettleMarkerLine(text.slice(0, newline));
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

interface Span {
  readonly start: number;
  readonly end: number;
}

// Pieces of whole lines, at most `maxChars` (a longer line is cut), a settle marker line ending a
// piece, so one settled turn is usually one piece; and the end of every marker line. Only a
// marker resets the cutting, which is why an update restarts there.
function chunkSpans(text: string, maxChars: number): { spans: Span[]; anchors: number[] } {
  const spans: Span[] = [];
  const anchors: number[] = [];
  let start = -1;
  let end = 0;
  const emit = () => {
    if (start >= 0 && end > start) spans.push({ start, end });
    start = -1;
  };
  for (let at = 0; at < text.length; ) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline < 0 ? text.length : newline + 1;
    const line = text.slice(at, newline < 0 ? text.length : newline);
    if (isSettleMarkerLine(line)) {
      emit();
      // A marker line without its line break may still grow: it is no restart point yet.
      if (newline >= 0) anchors.push(lineEnd);
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
  return { spans, anchors };
}
