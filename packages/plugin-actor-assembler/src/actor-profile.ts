import { defineContextKey } from '@troupe/kernel';
import type { MacroFields } from './macros.js';
import type { Preset, PromptRole } from './preset.js';
import type { RegexScript } from './regex/regex-script.js';

/**
 * Who the actor plays on one turn, and with which preset: an app with many characters (a
 * character library, one chat per character) sets this per turn instead of booting one harness
 * per character. Every field is optional; an absent field falls back to the plugin's options.
 */
export interface ActorProfile {
  /** The preset for this turn (validated when assembled; a bad one fails the turn with PRESET_INVALID). */
  readonly preset?: Preset;
  /** Name for `{{char}}`. */
  readonly char?: string;
  /** Name for `{{user}}`. */
  readonly user?: string;
  /** Character fields for `{{description}}`, … and the player's `{{persona}}`. */
  readonly fields?: MacroFields;
  /** The card's `system_prompt` / `post_history_instructions` (they replace `main` / `jailbreak`). */
  readonly cardPrompts?: { readonly systemPrompt?: string; readonly postHistoryInstructions?: string };
  /** The card's depth prompt, injected at its depth. */
  readonly depthPrompt?: { readonly prompt: string; readonly depth: number; readonly role: PromptRole };
  /** The card's regex scripts. */
  readonly regexScripts?: readonly RegexScript[];
  /**
   * The chat's first message (the card's greeting the player chose), as SillyTavern's `chat[0]`:
   * the oldest message of the chat history, an assistant message after the preset's
   * `new_chat_prompt`. Like every history message it is placed verbatim (no macros), reached by
   * the regex scripts and counted by depth injections, and it is the first to go when the token
   * budget trims the history (and it is left out of a chat longer than the kernel's history read,
   * which starts after it).
   */
  readonly greeting?: string;
}

/**
 * Context key of the turn's {@link ActorProfile}. Write it from a `preActor` handler (order
 * `pre`) of an app plugin; the assembler reads it in `actorAssemble`.
 */
export const actorProfileKey = defineContextKey<ActorProfile>('@troupe/plugin-actor-assembler/actorProfile');
