import { clipToTokens } from '../budget/clip-text.js';
import { type GrowingTextIndex, type IndexedPiece, isSettleMarkerLine } from './growing-text-index.js';

/** How much of a long document a stage gets and what the older part is searched for. */
export interface WindowOptions {
  /** Tokens of the whole view (recent window and older excerpts together). */
  readonly tokens: number;
  /** Most tokens of the recent window (the document's end kept whole). */
  readonly recentTokens: number;
  /** Most settled blocks (turns) in the recent window; text before the first marker counts as one. */
  readonly recentBlocks: number;
  /** Most older excerpts retrieved for `query`, within the tokens the recent window leaves. */
  readonly excerpts: number;
  /** What the older excerpts must be relevant to (only material the stage may see). */
  readonly query: string;
  /** The budget's token counter. */
  readonly count: (text: string) => number;
  /** The store revision the document was read at (lets the index take it without reading it). */
  readonly revision?: number;
}

/** The heading line before retrieved older excerpts. */
export const EARLIER_EXCERPTS = '[earlier, retrieved excerpts]';
/** The heading line before the recent window when excerpts precede it. */
export const MOST_RECENT = '[most recent]';

// Candidates asked of the index beyond the excerpts wanted (some may not fit the tokens left).
const EXTRA_CANDIDATES = 8;

/**
 * A bounded view of a document that grows every turn (public history, a character's knowledge):
 * its most recent pieces — at most `recentBlocks` settled turns and `recentTokens` tokens — and
 * before them up to `excerpts` older pieces most relevant to `query` in the tokens left, in
 * document order. A document whose pieces all fit is returned whole (settle markers left out).
 * Works on the index's pieces: the cost is the window's, not the document's (the index reads the
 * document only when it changed other than by a settlement it was told of).
 * @param text - the document
 * @param index - its search index (brought in line with `text` here)
 * @param options - the token shares, the query and the counter
 * @returns the view, at most `tokens` tokens plus two marker lines
 */
export function windowDocument(text: string, index: GrowingTextIndex, options: WindowOptions): string {
  const { count } = options;
  index.update(text, options.revision);
  const pieces = index.pieces;
  let cut = pieces.length;
  let used = 0;
  let blocks = 0;
  let clipped = false;
  const recent: string[] = [];
  while (cut > 0) {
    const piece = pieces[cut - 1]!;
    const newBlock = cut === pieces.length || pieces[cut]!.block !== piece.block;
    if (newBlock && blocks >= options.recentBlocks) break;
    const cost = count(piece.text) + 1;
    if (used + cost > options.recentTokens) {
      // The newest piece alone is too long: keep its end.
      if (recent.length === 0) {
        const end = clipToTokens(piece.text, options.recentTokens, count, 'tail');
        recent.push(end);
        used += count(end);
        clipped = true;
        cut--;
      }
      break;
    }
    if (newBlock) blocks++;
    used += cost;
    recent.push(piece.text);
    cut--;
  }
  recent.reverse();
  // Every piece fits: the document goes whole, as the player wrote it, without the markers.
  if (cut <= 0 && !clipped) return withoutMarkers(text);
  const excerpts: IndexedPiece[] = [];
  if (options.excerpts > 0 && options.query.trim() !== '') {
    let left = options.tokens - used;
    for (const piece of index.search(options.query, cut, options.excerpts + EXTRA_CANDIDATES)) {
      const cost = count(piece.text) + 2;
      if (cost > left) continue;
      left -= cost;
      excerpts.push(piece);
      if (excerpts.length >= options.excerpts) break;
    }
  }
  excerpts.sort((a, b) => a.ordinal - b.ordinal);
  const older = excerpts.length > 0 ? `${EARLIER_EXCERPTS}\n${excerpts.map((e) => e.text).join('\n…\n')}\n\n` : '…\n';
  return `${older}${excerpts.length > 0 ? `${MOST_RECENT}\n` : ''}${recent.join('\n')}`;
}

function withoutMarkers(text: string): string {
  if (!text.includes('<!-- troupe:settle ')) return text;
  return text
    .split('\n')
    .filter((line) => !isSettleMarkerLine(line))
    .join('\n');
}
