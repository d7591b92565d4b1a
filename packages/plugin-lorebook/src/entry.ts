import type { WorldInfoPosition } from '@troupe/kernel';
import type { WorldInfoScanSource } from './scan-sources.js';

/**
 * How secondary keys combine with a primary-key match (SillyTavern's `selectiveLogic`):
 * - `andAny` — at least one secondary key is present (ST 0, the default);
 * - `notAll` — at least one secondary key is absent (ST 1);
 * - `notAny` — no secondary key is present (ST 2);
 * - `andAll` — every secondary key is present (ST 3).
 */
export type SelectiveLogic = 'andAny' | 'notAll' | 'notAny' | 'andAll';

/** The role of an `atDepth` entry's injected message. */
export type WorldInfoRole = 'system' | 'user' | 'assistant';

/**
 * One world-info entry, normalised from a SillyTavern world-info file or a card's
 * `character_book`. `null` in the per-entry overrides means "use the global setting".
 */
export interface WorldInfoEntry {
  /** Unique within its book (ST `uid`, card `id`, or the array index). */
  readonly uid: string;
  /** Title / memo (ST `comment`). */
  readonly comment: string;
  /** Text that goes into the prompt (after `@@decorator` lines are taken off). */
  readonly content: string;
  /** Primary keys: plain text or `/regex/flags`. */
  readonly keys: readonly string[];
  /** Secondary keys; only consulted when {@link selective} is true. */
  readonly secondaryKeys: readonly string[];
  readonly selective: boolean;
  readonly selectiveLogic: SelectiveLogic;
  /** Always active (still subject to disable, timed effects, probability, groups and budget). */
  readonly constant: boolean;
  readonly disabled: boolean;
  /** Insertion order (ST `order`, card `insertion_order`); higher wins the budget and sits later. */
  readonly order: number;
  readonly position: WorldInfoPosition;
  /** For `atDepth`: how many messages from the end (default 4). */
  readonly depth: number;
  readonly role: WorldInfoRole;
  /** For `outlet`: the outlet's name (ST `outletName`); `{{outlet::name}}` shows the outlet. */
  readonly outletName?: string;
  /** Never activated by text from other entries (recursion), only by the chat. */
  readonly excludeRecursion: boolean;
  /** Its content is not scanned for further activations. */
  readonly preventRecursion: boolean;
  /** 0 = off; n ≥ 1 = may only activate in recursion, from delay level n on. */
  readonly delayUntilRecursion: number;
  /** Chance in percent (0–100) to be inserted once it matches. */
  readonly probability: number;
  readonly useProbability: boolean;
  /** Inclusion groups (ST `group`, comma separated): at most one entry of a group is inserted. */
  readonly groups: readonly string[];
  /** Wins its group outright (highest order among several). */
  readonly groupOverride: boolean;
  /** Weight of the weighted draw within a group (default 100). */
  readonly groupWeight: number;
  readonly useGroupScoring: boolean | null;
  readonly scanDepth: number | null;
  readonly caseSensitive: boolean | null;
  readonly matchWholeWords: boolean | null;
  /** Stays active for this many messages after it activated (0 = off). */
  readonly sticky: number;
  /** Cannot activate for this many messages after it activated (0 = off). */
  readonly cooldown: number;
  /** Cannot activate before the chat has this many messages (0 = off). */
  readonly delay: number;
  /**
   * Kept once activated even when the budget is exhausted (ST `ignoreBudget`); its tokens still
   * count toward the budget of the entries after it. Absent = false.
   */
  readonly ignoreBudget?: boolean;
  /**
   * The generation types it may activate on (ST `triggers`: `normal`, `continue`, `impersonate`,
   * `swipe`, `regenerate`, `quiet`); empty or absent = all. An unknown name matches nothing, as in ST.
   */
  readonly triggers?: readonly string[];
  /**
   * Card and persona fields its keys are also matched against, besides the chat (ST's
   * `matchPersonaDescription`, `matchCharacterDescription`, … flags). Absent = none.
   */
  readonly matchSources?: readonly WorldInfoScanSource[];
  /** `@@activate` / `@@dont_activate` lines found at the start of the content. */
  readonly decorators: readonly string[];
}

/**
 * Where a book is attached, which decides its place in the scan order (SillyTavern: chat lore
 * first, then character and global lore by the insertion strategy).
 */
export type LorebookScope = 'chat' | 'character' | 'global';

/** A named book of entries. */
export interface Lorebook {
  /** Unique among the books of one activation; part of every entry's id (`<name>.<uid>`). */
  readonly name: string;
  readonly scope?: LorebookScope;
  readonly entries: readonly WorldInfoEntry[];
}
