/** Event with the entries that fired this turn and why (ignorable; for a "lore used" view). */
export const LOREBOOK_ACTIVATED_EVENT = 'lorebook/activated';
/** Event carrying the chat's timed effects (sticky / cooldown) after a turn; read back next turn. */
export const LOREBOOK_STATE_EVENT = 'lorebook/state';
/** `findLatest` key of {@link LOREBOOK_STATE_EVENT}. */
export const LOREBOOK_STATE_KEY = 'timed-effects';

/** One entry in a {@link LOREBOOK_ACTIVATED_EVENT}. */
export interface ActivatedEventEntry {
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

/** Payload of {@link LOREBOOK_ACTIVATED_EVENT}. */
export interface ActivatedEventData {
  readonly entries: readonly ActivatedEventEntry[];
  readonly rejected: readonly { readonly id: string; readonly reason: string }[];
  readonly budget: { readonly limit: number; readonly used: number; readonly exhausted: boolean };
}
