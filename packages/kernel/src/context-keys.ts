import type { TurnTokenBudget } from './budget/token-budget.js';

/**
 * A typed slot in the turn context. Plugins share data only through keys the kernel defines
 * (so they never import each other); a plugin may define private keys for itself.
 */
export interface ContextKey<T> {
  /** Globally unique identity (`Symbol.for`), so duplicated package copies agree. */
  readonly id: symbol;
  /** Human-readable name used in error messages. */
  readonly name: string;
  /** Phantom field carrying the value type; never set at run time. */
  readonly __type?: T;
}

/**
 * Creates a typed context key.
 * @param name - unique name, namespaced like `@troupe/plugin-story/draft`
 * @returns a key whose identity is `Symbol.for(name)`
 */
export function defineContextKey<T>(name: string): ContextKey<T> {
  return Object.freeze({ id: Symbol.for(name), name });
}

/** The edited story draft that the story plugin hands to the actor assembler. */
export interface StoryDraft {
  /** Markdown text of the draft (sections under their own `##` headings). */
  readonly text: string;
  /** The workspace the draft was prepared from. */
  readonly workspaceId: string;
  /** The workspace revision the draft was prepared from. */
  readonly revision: number;
}

/**
 * Where an activated world-info entry goes, in SillyTavern's terms: before / after the character
 * definitions (`worldInfoBefore` / `worldInfoAfter`), around the author's note, around the
 * example messages, inside the chat at a depth (counted from the newest message), or into a named
 * outlet (`outlet`) that a prompt shows with `{{outlet::name}}` and that goes nowhere else.
 */
export type WorldInfoPosition = 'before' | 'after' | 'authorsNoteTop' | 'authorsNoteBottom' | 'examplesTop' | 'examplesBottom' | 'atDepth' | 'outlet';

/** One world-info entry that activated this turn, ready to be placed (macros not yet expanded). */
export interface ActivatedWorldInfoEntry {
  /** `<book>.<uid>`: unique within a turn. */
  readonly id: string;
  /** The book's name. */
  readonly book: string;
  /** The entry's uid within its book. */
  readonly uid: string;
  /** The entry's title (ST `comment`), for logs and the UI. */
  readonly comment: string;
  readonly content: string;
  readonly position: WorldInfoPosition;
  /** Insertion order: lower first within a position (ST: higher order sits closer to the end). */
  readonly order: number;
  /** For `atDepth`: 0 = after the newest message. */
  readonly depth: number;
  /** For `atDepth`: the role of the injected message. */
  readonly role: 'system' | 'user' | 'assistant';
  /** For `outlet`: the outlet's name (SillyTavern `outletName`), as `{{outlet::name}}` names it. */
  readonly outletName?: string;
}

/** The world info activated for one turn, in placement order. */
export interface ActivatedWorldInfo {
  readonly entries: readonly ActivatedWorldInfoEntry[];
}

/** A `continue` turn: the kept step being extended and its visible reply (the start of the answer). */
export interface TurnContinuationInfo {
  readonly step: number;
  readonly reply: string;
}

/**
 * Context keys shared between plugins. Writers and readers:
 * - `dioCompiledPrompt`: set by `@troupe/plugin-dio` (a verified complete character prompt),
 *   read by `@troupe/plugin-actor-assembler` (the DIO slot rules).
 * - `storyDraft`: set by `@troupe/plugin-story`, placed by the actor assembler.
 * - `templateVariables`: variables any plugin contributes to prompt macros (`{{getvar::name}}`).
 * - `worldInfo`: set by `@troupe/plugin-lorebook` (entries activated this turn), placed by the
 *   actor assembler at SillyTavern's positions; public material the story research stage may read.
 * - `tokenBudget`: set by the kernel at the start of every turn — the chat's context and
 *   response sizes, world info's share and a calibrated token counter for the actor model; read
 *   by the assembler (history trimming) and by world info (its own budget).
 * - `continuation`: set by the kernel on a `continue` turn (`harness.continueTurn`) — the step
 *   being extended and its reply, which also ends the kernel's `prepared.history`; read by the
 *   assembler (SillyTavern's continue: the nudge prompt or prefill of the preset).
 * - `continuationJoin`: set by a plugin on a `continue` turn (the actor assembler: the preset's
 *   `continue_postfix`, as SillyTavern applies it), read by the kernel — the text put between the
 *   kept reply and the continuation in the committed reply (default: none).
 */
export const contextKeys = Object.freeze({
  dioCompiledPrompt: defineContextKey<string>('@troupe/kernel/context/dioCompiledPrompt'),
  storyDraft: defineContextKey<StoryDraft>('@troupe/kernel/context/storyDraft'),
  templateVariables: defineContextKey<Readonly<Record<string, string>>>('@troupe/kernel/context/templateVariables'),
  worldInfo: defineContextKey<ActivatedWorldInfo>('@troupe/kernel/context/worldInfo'),
  tokenBudget: defineContextKey<TurnTokenBudget>('@troupe/kernel/context/tokenBudget'),
  continuation: defineContextKey<TurnContinuationInfo>('@troupe/kernel/context/continuation'),
  continuationJoin: defineContextKey<string>('@troupe/kernel/context/continuationJoin'),
});
