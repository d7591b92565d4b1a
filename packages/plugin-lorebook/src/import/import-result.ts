import type { Lorebook } from '../entry.js';

/** An entry the importer could not turn into a placeable entry (it stays in the source file). */
export interface SkippedEntry {
  readonly uid: string;
  readonly reason: string;
}

/** What an import returns. */
export interface LorebookImport {
  readonly book: Lorebook;
  /** Entries left out, with why (e.g. an unknown `position`); nothing else is dropped. */
  readonly skipped: readonly SkippedEntry[];
}
