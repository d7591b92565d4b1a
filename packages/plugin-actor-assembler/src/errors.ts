import { defineErrorClass } from '@troupe/kernel';

/**
 * Stable error codes of the actor assembler. A code never changes meaning once released; match on
 * `code`, not on the message.
 *
 * - `DIO_DUPLICATE_ROLEPLAY` — more than one prompt is named `roleplay`.
 * - `DIO_NO_SLOT` — no `roleplay` prompt and no `{{getvar::systemPrompt}}` placeholder.
 * - `DIO_AMBIGUOUS_PLACEHOLDER` — no `roleplay` prompt and several `{{getvar::systemPrompt}}`.
 * - `DIO_SLOT_DISABLED` — the one slot exists but its prompt is disabled (the DIO prompt would be lost).
 * - `DIO_SLOT_OVERRIDDEN` — an `overrides` entry targets the slot's prompt while a DIO prompt is present (it would drop the DIO prompt).
 * - `DIO_COMPILED_PROMPT_INVALID` — the compiled prompt is not a non-empty string.
 * - `DIO_CHARACTER_TEXT_REMAINS` — (a `validatePreset` warning, never thrown) another enabled prompt still carries character text next to the DIO slot.
 * - `PRESET_INVALID` — a preset fails its schema or marker rules.
 * - `MACRO_UNKNOWN` — an unknown macro while `unknownMacros: 'error'`.
 * - `MACRO_SLOT_VARIABLE_UNSET` — `{{getvar::dioCompiledPrompt}}` (a slot variable) read while unset.
 * - `MACRO_RESERVED_VARIABLE` — something other than a slot rule tried to set a slot variable.
 * - `ASSEMBLE_INPUT_INVALID` — `assemble` received malformed input.
 * - `BUDGET_PROMPT_TOO_LONG` — the prompt does not fit the chat's token budget even with every
 *   history message dropped (the fixed prompts, DIO slot, story draft and input alone are too long).
 * - `IMPORT_TOO_LARGE` — a file or chunk is over its size cap.
 * - `IMPORT_JSON_INVALID` — a file is not valid JSON.
 * - `IMPORT_PRESET_INVALID` — a SillyTavern preset does not have the expected shape.
 * - `IMPORT_CARD_INVALID` — a character card does not have the expected shape.
 * - `IMPORT_CARD_UNSUPPORTED` — a card with an unknown `spec` (V1 cards are upgraded, not refused).
 * - `IMPORT_CHARX_INVALID` — a CHARX (ZIP) card that is damaged or has no `card.json`.
 * - `PNG_INVALID` — not a PNG, truncated, or a chunk is malformed.
 * - `PNG_CRC_MISMATCH` — a chunk's CRC does not match its bytes.
 * - `PNG_NO_CARD` — a PNG without a `ccv3` or `chara` text chunk.
 */
export type AssemblerErrorCode =
  | 'DIO_DUPLICATE_ROLEPLAY'
  | 'DIO_NO_SLOT'
  | 'DIO_AMBIGUOUS_PLACEHOLDER'
  | 'DIO_SLOT_DISABLED'
  | 'DIO_SLOT_OVERRIDDEN'
  | 'DIO_COMPILED_PROMPT_INVALID'
  | 'DIO_CHARACTER_TEXT_REMAINS'
  | 'PRESET_INVALID'
  | 'MACRO_UNKNOWN'
  | 'MACRO_SLOT_VARIABLE_UNSET'
  | 'MACRO_RESERVED_VARIABLE'
  | 'ASSEMBLE_INPUT_INVALID'
  | 'BUDGET_PROMPT_TOO_LONG'
  | 'IMPORT_TOO_LARGE'
  | 'IMPORT_JSON_INVALID'
  | 'IMPORT_PRESET_INVALID'
  | 'IMPORT_CARD_INVALID'
  | 'IMPORT_CARD_UNSUPPORTED'
  | 'IMPORT_CHARX_INVALID'
  | 'PNG_INVALID'
  | 'PNG_CRC_MISMATCH'
  | 'PNG_NO_CARD';

/**
 * The one error type of this package (`code`, `message`, `details`, `cause`). Recognise it across
 * duplicated package copies with `AssemblerError.isInstance(error)`.
 */
export class AssemblerError extends defineErrorClass<AssemblerErrorCode>('AssemblerError') {}
