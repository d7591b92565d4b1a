import type { Lorebook, WorldInfoEntry } from './entry.js';
import type { MatchOptions } from './match/match-key.js';
import type { WorldInfoScanSource } from './scan-sources.js';

/** An entry as one activation handles it: with its book, id and place in the scan order. */
export interface Candidate {
  /** `<book>.<uid>`. */
  readonly id: string;
  readonly book: Lorebook;
  readonly entry: WorldInfoEntry;
  /** Index in the scan order (chat books, then character/global by strategy, each by order). */
  readonly rank: number;
  /** Primary keys after macro substitution. */
  readonly keys: readonly string[];
  readonly secondaryKeys: readonly string[];
  /** Case sensitivity and whole-word matching: the entry's own, else the global settings. */
  readonly options: MatchOptions;
  /** Scan depth: the entry's own, else the global setting. */
  readonly scanDepth: number;
  /** Card and persona fields scanned with the chat for this entry, in ST's order. */
  readonly sources: readonly WorldInfoScanSource[];
}
