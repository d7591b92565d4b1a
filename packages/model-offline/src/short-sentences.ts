import { isCjk, spokenLength } from './text.js';

/** Limits of the short-sentence rewrite. */
export const SHORT_SENTENCE_LIMITS = Object.freeze({ cjkChars: 14, englishWords: 10, maxSentences: 8 });

interface Piece {
  readonly text: string;
  /** Lower keeps longer when the reply must be cut to the sentence cap. */
  readonly priority: number;
}

/**
 * Rewrites prose into short sentences: clauses (split at ，,；;：: and sentence ends) become
 * sentences of their own, a spoken line stays in its quotes with its speaker, and `##` headings
 * stay as they are. When more than {@link SHORT_SENTENCE_LIMITS}.maxSentences remain, the least
 * important ones go first: lines that only repeat `echo` (the player's own words), then narration
 * after the first of each paragraph; spoken lines are kept.
 * @param text - the prose (Markdown headings allowed)
 * @param echo - the player's last input, whose repetition may be dropped
 * @param speakers - the character the requirement is for (all its names): a line that narration
 *   gives to someone else (`Marco转过身来：“…”`) keeps its own sentences; empty = every line
 * @returns the rewritten text, same paragraphs and headings
 */
export function toShortSentences(text: string, echo = '', speakers: readonly string[] = []): string {
  const paragraphs = text.split(/\n\s*\n/).map((paragraph) => paragraph.trim()).filter((paragraph) => paragraph !== '');
  const pieces = paragraphs.map((paragraph) => (/^#{1,6}\s/.test(paragraph) ? undefined : shortPieces(paragraph, echo, speakers)));
  const budget = SHORT_SENTENCE_LIMITS.maxSentences;
  const all = pieces.flatMap((list, paragraph) => (list ?? []).map((piece, index) => ({ ...piece, paragraph, index })));
  const kept = new Set(all.map((piece) => `${piece.paragraph}/${piece.index}`));
  // Drop by priority (highest first), later pieces before earlier ones, until within the cap.
  const order = [...all].sort((a, b) => b.priority - a.priority || b.paragraph - a.paragraph || b.index - a.index);
  for (const piece of order) {
    if (kept.size <= budget || piece.priority === 0) break;
    kept.delete(`${piece.paragraph}/${piece.index}`);
  }
  return paragraphs
    .map((paragraph, at) => {
      const list = pieces[at];
      if (!list) return paragraph;
      const chinese = isCjk(paragraph);
      return list
        .filter((_, index) => kept.has(`${at}/${index}`))
        .map((piece) => piece.text)
        .join(chinese ? '' : ' ');
    })
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}

/** Splits one paragraph into short sentences with their priorities. */
function shortPieces(paragraph: string, echo: string, speakers: readonly string[]): Piece[] {
  const chinese = isCjk(paragraph);
  const stop = chinese ? '。' : '.';
  const pieces: Piece[] = [];
  // Narration and quotes alternate; a narration clause ending in ：/: introduces the quote after it.
  const parts = paragraph.split(/([“「"][^”」"]*[”」"])/u);
  let pendingSpeaker = '';
  let firstNarration = true;
  const echoKey = keyOf(echo);
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    if (index % 2 === 1) {
      const open = part[0]!;
      const close = part[part.length - 1]!;
      // Another character's line (its speaker is named and is not the one asked) stays as written.
      const someoneElse = speakers.length > 0 && pendingSpeaker !== '' && !speakers.some((name) => pendingSpeaker.includes(name));
      const inner = someoneElse ? part.slice(1, -1) : clauses(part.slice(1, -1)).map((clause) => clause.text + clause.end).join(chinese ? '' : ' ');
      const repeatsPlayer = echoKey !== '' && keyOf(part).length > 0 && echoKey.includes(keyOf(part));
      pieces.push({ text: `${pendingSpeaker}${open}${inner}${close}`, priority: repeatsPlayer ? 2 : 0 });
      pendingSpeaker = '';
      continue;
    }
    const found = clauses(part);
    const introducesQuote = index + 1 < parts.length && /[：:]\s*$/u.test(part);
    for (let at = 0; at < found.length; at++) {
      const clause = found[at]!;
      if (introducesQuote && at === found.length - 1) {
        pendingSpeaker = `${clause.text}${chinese ? '：' : ': '}`;
        continue;
      }
      pieces.push({ text: `${clause.text}${/[。！？!?.]/u.test(clause.end) ? clause.end : stop}`, priority: firstNarration ? 0 : 1 });
      firstNarration = false;
    }
  }
  if (pendingSpeaker) pieces.push({ text: `${pendingSpeaker.replace(/[：:]\s*$/u, '')}${stop}`, priority: 1 });
  return pieces;
}

interface Clause {
  readonly text: string;
  readonly end: string;
}

/** Clauses of a narration or quote part, each with the punctuation that ended it. */
function clauses(text: string): Clause[] {
  const result: Clause[] = [];
  // An English full stop ends a clause only before a space or the end (not in "3.5" or "Mr.X").
  const marked = text.replace(/\.(?=\s|$)/g, '\u0000');
  // 、 is kept: it joins list items ("Lia、Marco和Old Ren"), and splitting there breaks the list.
  const pattern = /([^，,；;：:。！？!?\u0000]+)([，,；;：:。！？!?\u0000]*)/gu;
  for (const match of marked.matchAll(pattern)) {
    const body = match[1]!.trim();
    if (body === '') continue;
    const end = match[2] ?? '';
    const stop = /[！!]/u.test(end) ? '！' : /[？?]/u.test(end) ? '？' : '。';
    const english = !isCjk(text);
    result.push(...splitLong(body, english).map((piece) => ({ text: piece, end: english ? (stop === '。' ? '.' : stop === '！' ? '!' : '?') : stop })));
  }
  return result;
}

/** English clauses longer than the word limit are cut at word boundaries; CJK clauses stay whole. */
function splitLong(body: string, english: boolean): string[] {
  if (!english || spokenLength(body) <= SHORT_SENTENCE_LIMITS.englishWords) return [body];
  const words = body.split(/\s+/);
  const chunks: string[] = [];
  for (let start = 0; start < words.length; start += SHORT_SENTENCE_LIMITS.englishWords) {
    chunks.push(words.slice(start, start + SHORT_SENTENCE_LIMITS.englishWords).join(' '));
  }
  return chunks;
}

function keyOf(text: string): string {
  return text.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, '');
}
