import { clipToTokens } from '../budget/clip-text.js';
import { type GrowingTextIndex, isSettleMarkerLine } from './growing-text-index.js';

/** How much of a long document a stage gets and what the older part is searched for. */
export interface WindowOptions {
  /** Tokens of the document's end kept whole (the recent window). */
  readonly recentTokens: number;
  /** Tokens of older excerpts retrieved for `query`. */
  readonly olderTokens: number;
  /** What the older excerpts must be relevant to (only material the stage may see). */
  readonly query: string;
  /** The budget's token counter. */
  readonly count: (text: string) => number;
}

/** The heading line before retrieved older excerpts. */
export const EARLIER_EXCERPTS = '[earlier, retrieved excerpts]';
/** The heading line before the recent window when excerpts precede it. */
export const MOST_RECENT = '[most recent]';

const MAX_EXCERPTS = 24;

/**
 * A bounded view of a document that grows every turn (public history, a character's knowledge):
 * its most recent lines up to `recentTokens`, and before them the older pieces most relevant to
 * `query` up to `olderTokens`, in document order. A document that fits is returned as it is. Never counts or copies the whole document beyond one pass over its tail.
 * @param text - the document
 * @param index - its search index (updated here only when the document is longer than the window)
 * @param options - the token shares, the query and the counter
 * @returns the view, at most `recentTokens + olderTokens` tokens plus two marker lines
 */
export function windowDocument(text: string, index: GrowingTextIndex, options: WindowOptions): string {
  const { count } = options;
  let cut = text.length;
  let used = 0;
  const recent: string[] = [];
  while (cut > 0) {
    const lineStart = text.lastIndexOf('\n', cut - 2) + 1;
    const line = text.slice(lineStart, text[cut - 1] === '\n' ? cut - 1 : cut);
    if (!isSettleMarkerLine(line) && line.trim() !== '') {
      const cost = count(line) + 1;
      if (used + cost > options.recentTokens) {
        // The newest line alone is too long: keep its end.
        if (recent.length === 0) recent.push(clipToTokens(line, options.recentTokens, count, 'tail'));
        break;
      }
      used += cost;
      recent.push(line);
    }
    cut = lineStart;
  }
  recent.reverse();
  // The whole document fits: it goes as it is.
  if (cut <= 0) return text;
  const excerpts: { start: number; text: string }[] = [];
  if (options.olderTokens > 0 && options.query.trim() !== '') {
    index.update(text);
    let left = options.olderTokens;
    for (const span of index.search(options.query, cut, MAX_EXCERPTS)) {
      const piece = text
        .slice(span.start, span.end)
        .split('\n')
        .filter((line) => line.trim() !== '' && !isSettleMarkerLine(line))
        .join('\n');
      const cost = count(piece) + 2;
      if (cost > left) continue;
      left -= cost;
      excerpts.push({ start: span.start, text: piece });
    }
  }
  excerpts.sort((a, b) => a.start - b.start);
  const older = excerpts.length > 0 ? `${EARLIER_EXCERPTS}\n${excerpts.map((e) => e.text).join('\n…\n')}\n\n` : '…\n';
  return `${older}${excerpts.length > 0 ? `${MOST_RECENT}\n` : ''}${recent.join('\n')}`;
}
