import { formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { AssemblerError } from './errors.js';
import { findMacros, isGetvar } from './macros.js';
import type { PromptEntry } from './preset.js';

/** The prompt name that marks the DIO character slot (rule 1). */
export const ROLEPLAY_PROMPT_NAME = 'roleplay';
/** The placeholder that is the DIO slot when no `roleplay` prompt exists (rule 2). */
export const SYSTEM_PROMPT_PLACEHOLDER = '{{getvar::systemPrompt}}';
/** What the rule-2 placeholder becomes. */
export const DIO_PLACEHOLDER = '{{getvar::dioCompiledPrompt}}';
/** The template variable the compiled prompt is bound to. */
export const DIO_VARIABLE = 'dioCompiledPrompt';

/** Where the DIO compiled prompt goes, as found by {@link locateDioSlot}. */
export type DioSlot =
  | { readonly rule: 'roleplay'; readonly index: number; readonly identifier: string }
  | { readonly rule: 'placeholder'; readonly index: number; readonly identifier: string; readonly offset: number; readonly length: number };

/** What {@link applyDioCompiledPrompt} returns. */
export interface DioSlotResult<P extends PromptEntry = PromptEntry> {
  /** New prompt list (input untouched); same order and roles. */
  readonly prompts: P[];
  /** `{dioCompiledPrompt: compiledPrompt}`: bind these before expanding macros. */
  readonly variables: Record<string, string>;
}

const slotInputSchema = z.array(
  z.looseObject({ identifier: z.string(), name: z.string(), role: z.string(), content: z.string() }),
);

/**
 * Finds the one place a DIO compiled prompt may go, by the seed's rules:
 * 1. exactly one prompt named `roleplay` → that prompt;
 * 2. otherwise exactly one `{{getvar::systemPrompt}}` across all prompts → that placeholder.
 * Disabled prompts count too: the rules look at the whole PromptManager, not only what is on.
 * @param prompts - the preset's prompts
 * @returns the slot
 * @throws {AssemblerError} DIO_DUPLICATE_ROLEPLAY, DIO_NO_SLOT, DIO_AMBIGUOUS_PLACEHOLDER, DIO_SLOT_DISABLED
 */
export function locateDioSlot(prompts: readonly PromptEntry[]): DioSlot {
  const roleplay = prompts.flatMap((prompt, index) => (prompt.name === ROLEPLAY_PROMPT_NAME ? [index] : []));
  if (roleplay.length > 1) {
    throw new AssemblerError('DIO_DUPLICATE_ROLEPLAY', `${roleplay.length} prompts are named "roleplay"; the DIO prompt needs exactly one`, { details: {
      identifiers: roleplay.map((index) => prompts[index]?.identifier),
    } });
  }
  const only = roleplay[0];
  if (only !== undefined) return enabledSlot(prompts, { rule: 'roleplay', index: only, identifier: prompts[only]?.identifier ?? '' });

  const placeholders: { index: number; offset: number; length: number }[] = [];
  prompts.forEach((prompt, index) => {
    if (prompt.marker !== undefined) return;
    for (const match of findMacros(prompt.content)) {
      if (isGetvar(match, 'systemPrompt')) placeholders.push({ index, offset: match.index, length: match.raw.length });
    }
  });
  if (placeholders.length === 0) {
    throw new AssemblerError('DIO_NO_SLOT', 'No prompt named "roleplay" and no {{getvar::systemPrompt}} placeholder: nowhere to put the DIO prompt');
  }
  if (placeholders.length > 1) {
    throw new AssemblerError(
      'DIO_AMBIGUOUS_PLACEHOLDER',
      `No prompt named "roleplay" and ${placeholders.length} {{getvar::systemPrompt}} placeholders; the DIO prompt needs exactly one`,
      { details: { identifiers: placeholders.map((slot) => prompts[slot.index]?.identifier) } },
    );
  }
  const slot = placeholders[0]!;
  return enabledSlot(prompts, { rule: 'placeholder', ...slot, identifier: prompts[slot.index]?.identifier ?? '' });
}

// A slot in a disabled prompt would silently drop the DIO prompt, which the seed forbids.
function enabledSlot(prompts: readonly PromptEntry[], slot: DioSlot): DioSlot {
  if (prompts[slot.index]?.enabled === false) {
    throw new AssemblerError('DIO_SLOT_DISABLED', `The DIO slot is prompt "${slot.identifier}", which is disabled; enable it or the DIO prompt would be lost`, { details: {
      identifier: slot.identifier,
    } });
  }
  return slot;
}

/**
 * The DIO slot rules (`applyDioCompiledPrompt`): puts a verified compiled character prompt into
 * the one slot of a preset. Rule 1 replaces the whole content of the single `roleplay` prompt
 * (role and order kept) with `{{getvar::dioCompiledPrompt}}`; rule 2 turns the single
 * `{{getvar::systemPrompt}}` into `{{getvar::dioCompiledPrompt}}`. Either way
 * `variables.dioCompiledPrompt` is the compiled text, so after macro expansion the slot holds the
 * compiled prompt verbatim: macros inside it (`{{char}}`, `{{getvar::…}}`, `{{setvar::…}}`) are
 * external content, never expanded. It never appends elsewhere and never picks one of several.
 * The input is not mutated.
 * @param prompts - prompts with at least `{identifier, name, role, content}`
 * @param compiledPrompt - the complete compiled character prompt (non-empty)
 * @returns new prompts and the variables to bind
 * @throws {AssemblerError} DIO_DUPLICATE_ROLEPLAY, DIO_NO_SLOT, DIO_AMBIGUOUS_PLACEHOLDER,
 *   DIO_SLOT_DISABLED (the slot's prompt has `enabled: false`), DIO_COMPILED_PROMPT_INVALID (empty or not a string), PRESET_INVALID (malformed prompts)
 */
export function applyDioCompiledPrompt<P extends PromptEntry>(prompts: readonly P[], compiledPrompt: string): DioSlotResult<P> {
  if (typeof compiledPrompt !== 'string' || compiledPrompt.trim() === '') {
    throw new AssemblerError('DIO_COMPILED_PROMPT_INVALID', 'The DIO compiled prompt must be a non-empty string');
  }
  const checked = slotInputSchema.safeParse(prompts);
  if (!checked.success) throw new AssemblerError('PRESET_INVALID', `Invalid prompts: ${formatIssues(checked.error)}`);
  const slot = locateDioSlot(prompts);
  const next = prompts.map((prompt, index): P => {
    if (index !== slot.index) return { ...prompt };
    // The compiled prompt is external text: it goes in through the variable, exactly as under
    // rule 2, so macro expansion places it verbatim instead of reading macros out of it.
    if (slot.rule === 'roleplay') return { ...prompt, content: DIO_PLACEHOLDER };
    const content = prompt.content.slice(0, slot.offset) + DIO_PLACEHOLDER + prompt.content.slice(slot.offset + slot.length);
    return { ...prompt, content };
  });
  return { prompts: next, variables: { [DIO_VARIABLE]: compiledPrompt } };
}

/**
 * Refuses an `overrides` entry aimed at the DIO slot's prompt: on a turn with a compiled prompt
 * the override would replace the slot's content and drop the DIO prompt (or mix it with other
 * text), which the seed forbids. An override the prompt ignores (`forbidOverrides: true`) is fine.
 * @param prompts - the preset's prompts
 * @param slot - the slot found by {@link locateDioSlot}
 * @param overrides - replacement content by prompt identifier
 * @throws {AssemblerError} DIO_SLOT_OVERRIDDEN
 */
export function assertDioSlotNotOverridden(prompts: readonly PromptEntry[], slot: DioSlot, overrides: Readonly<Record<string, string>> | undefined): void {
  if (overrides === undefined || !Object.hasOwn(overrides, slot.identifier)) return;
  if (prompts[slot.index]?.forbidOverrides === true) return;
  throw new AssemblerError(
    'DIO_SLOT_OVERRIDDEN',
    `An override replaces prompt "${slot.identifier}", which is the DIO slot; it would drop the DIO prompt. Remove the override or put its text in another prompt`,
    { details: { identifier: slot.identifier } },
  );
}
