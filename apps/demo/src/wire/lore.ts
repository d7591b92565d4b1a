// Wire shapes of world info: plain types with no imports, shared by the server and the browser UI.
// The activation shapes mirror @troupe/plugin-lorebook's exported event types;
// src/server/wire-conformance.ts fails the build when they drift apart. See ./README.md.

/** A world-info entry the importer could not place (plugin-lorebook's `SkippedEntry`). */
export interface LoreSkippedEntry {
  readonly uid: string;
  readonly reason: string;
}

/** A row of `GET /api/lorebooks`. */
export interface LorebookSummary {
  readonly id: string;
  readonly name: string;
  readonly entries: number;
  /** Entries the importer could not place (e.g. an unknown position), with why. */
  readonly skipped: readonly LoreSkippedEntry[];
  readonly importedAt: string;
}

/** `GET /api/lorebooks`: the library's books, and the stored ones that no longer read. */
export interface LorebookList {
  readonly lorebooks: readonly LorebookSummary[];
  readonly broken: readonly { readonly id: string; readonly message: string }[];
}

/** `GET /api/sessions/:id/lorebooks` (and the answer of `PUT`): the books this session uses. */
export interface SessionLorebooks {
  readonly sessionId: string;
  readonly attached: readonly { id: string; name: string; entries: number }[];
  /** Attached ids whose book was deleted since. */
  readonly missing: readonly string[];
  /** The chat character's own `character_book`, which always applies. */
  readonly characterBook: { name: string; character: string; entries: number } | null;
}

/** One entry that fired on a turn (plugin-lorebook's `ActivatedEventEntry`). */
export interface FiredLoreEntry {
  readonly id: string;
  readonly book: string;
  readonly uid: string;
  readonly comment: string;
  readonly position: string;
  readonly reason: 'key' | 'constant' | 'sticky' | 'decorator';
  readonly key?: string;
  readonly secondaryKey?: string;
  readonly recursion: boolean;
  readonly tokens: number;
}

/** What fired on a turn, what lost, and the budget (plugin-lorebook's `ActivatedEventData`). */
export interface LoreActivation {
  readonly entries: readonly FiredLoreEntry[];
  readonly rejected: readonly { readonly id: string; readonly reason: string }[];
  readonly budget: { readonly limit: number; readonly used: number; readonly exhausted: boolean };
}

/** One turn's world info in {@link SessionLore}. */
export interface LoreTurn extends LoreActivation {
  readonly turnId: string;
  readonly at: string;
}

/** `GET /api/sessions/:id/lore`: which entries fired on each turn and why, newest turn first. */
export interface SessionLore {
  readonly sessionId: string;
  readonly turns: readonly LoreTurn[];
}
