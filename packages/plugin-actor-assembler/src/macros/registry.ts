import type { MacroTable } from './definition.js';
import { CHARACTER_MACROS } from './definitions/character-macros.js';
import { CHAT_MACROS } from './definitions/chat-macros.js';
import { CORE_MACROS } from './definitions/core-macros.js';
import { TIME_MACROS } from './definitions/time-macros.js';
import { VARIABLE_MACROS } from './definitions/variable-macros.js';

/** Every supported macro by lower-case name; anything else is unknown and stays as text. */
export const MACRO_TABLE: MacroTable = Object.freeze({ ...CORE_MACROS, ...CHARACTER_MACROS, ...CHAT_MACROS, ...VARIABLE_MACROS, ...TIME_MACROS });

/**
 * The names of the supported macros (lower-case), e.g. for a preset check.
 * @returns the names, sorted
 */
export function supportedMacroNames(): string[] {
  return Object.keys(MACRO_TABLE).sort();
}
