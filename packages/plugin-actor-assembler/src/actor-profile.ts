import { defineContextKey } from '@troupe/kernel';
import type { MacroFields } from './macros.js';
import type { Preset } from './preset.js';

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
}

/**
 * Context key of the turn's {@link ActorProfile}. Write it from a `preActor` handler (order
 * `pre`) of an app plugin; the assembler reads it in `actorAssemble`.
 */
export const actorProfileKey = defineContextKey<ActorProfile>('@troupe/plugin-actor-assembler/actorProfile');
