/** A row of `GET /api/lorebooks`. */
export interface LorebookSummary {
  readonly id: string;
  readonly name: string;
  readonly entries: number;
  readonly skipped: readonly { uid: string; reason: string }[];
}

/** `GET /api/sessions/:id/lorebooks`. */
export interface SessionLorebooks {
  readonly attached: readonly { id: string; name: string; entries: number }[];
  readonly missing: readonly string[];
  readonly characterBook: { name: string; character: string; entries: number } | null;
}

/** One fired entry of a turn (`lorebook/activated`). */
export interface FiredEntry {
  readonly id: string;
  readonly comment: string;
  readonly position: string;
  readonly reason: 'key' | 'constant' | 'sticky' | 'decorator';
  readonly key?: string;
  readonly secondaryKey?: string;
  readonly recursion: boolean;
  readonly tokens: number;
}

/** `GET /api/sessions/:id/lore`: newest turn first. */
export interface SessionLore {
  readonly turns: readonly {
    turnId: string;
    at: string;
    entries: readonly FiredEntry[];
    rejected: readonly { id: string; reason: string }[];
    budget: { limit: number; used: number; exhausted: boolean };
  }[];
}
