import { formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { AssemblerError } from './errors.js';
import { type PresetSettings, PresetSettingsSchema } from './preset-settings.js';
import { type RegexScript, RegexScriptSchema } from './regex/regex-script.js';

/** Roles a prompt can speak as. */
export type PromptRole = 'system' | 'user' | 'assistant';

/**
 * Where generated content goes instead of the prompt's own text:
 * - `chatHistory` — the earlier turns of the session, unchanged and in order;
 * - `userInput` — the player's current input (defaults to right after the history when absent).
 */
export type PromptMarker = 'chatHistory' | 'userInput';

/**
 * One prompt of a preset, in the spirit of SillyTavern's PromptManager. The DIO slot rules need
 * only `identifier`, `name`, `role` and `content`; the rest is optional.
 */
export interface PromptEntry {
  /** Stable id (e.g. `main`, `chatHistory`); unique within a preset. */
  readonly identifier: string;
  /** Display name; the name `roleplay` marks the DIO character slot. */
  readonly name: string;
  readonly role: PromptRole;
  /** Text with macros (`{{char}}`, `{{getvar::x}}`, …). Ignored for markers. */
  readonly content: string;
  /** Disabled prompts are skipped (default true). Markers are always placed. */
  readonly enabled?: boolean;
  /** Makes this entry a placeholder for the history or the current input. */
  readonly marker?: PromptMarker;
  /** When true, an `overrides` entry for this prompt is ignored. */
  readonly forbidOverrides?: boolean;
  /**
   * Makes this an in-chat injection (SillyTavern's `injection_position: 1`): placed this many
   * messages from the end of the chat instead of in preset order.
   */
  readonly injectionDepth?: number;
  /** Order among injections at the same depth (higher = closer to the end; default 100). */
  readonly injectionOrder?: number;
}

/** An ordered list of prompts: what the actor receives, in order. */
export interface Preset {
  /** Optional display name of the preset. */
  readonly name?: string;
  readonly prompts: readonly PromptEntry[];
  /** SillyTavern settings the assembler applies (squashing, prefill, names, formats, …). */
  readonly settings?: PresetSettings;
  /** Regex scripts of the preset (SillyTavern's `extensions.regex_scripts`). */
  readonly regexScripts?: readonly RegexScript[];
}

/** Schema of a {@link PromptEntry}. */
export const PromptEntrySchema = z
  .object({
    identifier: z.string().min(1).max(256),
    name: z.string().max(256),
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string().max(1_000_000),
    enabled: z.boolean().optional(),
    marker: z.enum(['chatHistory', 'userInput']).optional(),
    forbidOverrides: z.boolean().optional(),
    injectionDepth: z.number().int().min(0).max(10_000).optional(),
    injectionOrder: z.number().finite().optional(),
  })
  .strict();

/**
 * The rules a preset's prompt list must follow beyond field types: unique identifiers, exactly one
 * `chatHistory` marker, at most one `userInput` marker.
 * @param prompts - prompts (possibly malformed; non-objects are ignored)
 * @returns issues with paths, empty when the rules hold
 */
export function presetRuleIssues(prompts: readonly unknown[]): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const seen = new Set<string>();
  let history = 0;
  let input = 0;
  prompts.forEach((value, index) => {
    if (typeof value !== 'object' || value === null) return;
    const prompt = value as Partial<PromptEntry>;
    if (typeof prompt.identifier === 'string') {
      if (seen.has(prompt.identifier)) issues.push({ path: ['prompts', index, 'identifier'], message: `duplicate identifier "${prompt.identifier}"` });
      seen.add(prompt.identifier);
    }
    if (prompt.marker === 'chatHistory') history++;
    if (prompt.marker === 'userInput') input++;
  });
  // Exactly one history marker: without it the history would be dropped, with two it would repeat.
  if (history !== 1) issues.push({ path: ['prompts'], message: `needs exactly one chatHistory marker (found ${history})` });
  if (input > 1) issues.push({ path: ['prompts'], message: `at most one userInput marker (found ${input})` });
  return issues;
}

/** Schema of a {@link Preset}: at most 10 000 prompts, plus {@link presetRuleIssues}. */
export const PresetSchema = z
  .object({
    name: z.string().max(256).optional(),
    prompts: z.array(PromptEntrySchema).max(10_000),
    settings: PresetSettingsSchema.optional(),
    regexScripts: z.array(RegexScriptSchema).max(1000).optional(),
  })
  .strict()
  .superRefine((preset, ctx) => {
    for (const issue of presetRuleIssues(preset.prompts)) ctx.addIssue({ code: 'custom', ...issue });
  });

/**
 * Validates a preset's shape and marker rules.
 * @param value - untrusted preset data
 * @returns the preset (a validated copy)
 * @throws {AssemblerError} PRESET_INVALID with the issues in `details.issues`
 */
export function parsePreset(value: unknown): Preset {
  const result = PresetSchema.safeParse(value);
  if (!result.success) {
    throw new AssemblerError('PRESET_INVALID', `Invalid preset: ${formatIssues(result.error)}`, { details: {
      issues: result.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    } });
  }
  return result.data;
}

/**
 * A small working preset: main instruction, world info before, the `roleplay` character slot,
 * world info after, examples, history, input.
 * @returns a new preset every call
 */
export function defaultPreset(): Preset {
  return {
    name: 'Troupe default',
    prompts: [
      { identifier: 'main', name: 'Main prompt', role: 'system', content: "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}." },
      // World info before/after the character, as in SillyTavern's default prompt order.
      { identifier: 'worldInfoBefore', name: 'World info (before)', role: 'system', content: '{{getvar::worldInfoBefore}}' },
      { identifier: 'character', name: 'roleplay', role: 'system', content: '{{description}}\n\n{{personality}}\n\n{{scenario}}' },
      { identifier: 'worldInfoAfter', name: 'World info (after)', role: 'system', content: '{{getvar::worldInfoAfter}}' },
      { identifier: 'dialogueExamples', name: 'Dialogue examples', role: 'system', content: '{{mesExamples}}' },
      { identifier: 'chatHistory', name: 'Chat history', role: 'system', content: '', marker: 'chatHistory' },
      { identifier: 'userInput', name: 'Player input', role: 'user', content: '', marker: 'userInput' },
    ],
  };
}

/**
 * Returns a copy of a preset with one prompt enabled or disabled (e.g. to accept a card's
 * quarantined `system_prompt`).
 * @param preset - the preset (not changed)
 * @param identifier - the prompt to change
 * @param enabled - the new state (default true)
 * @returns a new preset
 * @throws {AssemblerError} PRESET_INVALID when no prompt has that identifier
 */
export function setPromptEnabled(preset: Preset, identifier: string, enabled = true): Preset {
  if (!preset.prompts.some((prompt) => prompt.identifier === identifier)) {
    throw new AssemblerError('PRESET_INVALID', `No prompt with identifier "${identifier}"`, { details: { identifier } });
  }
  return { ...preset, prompts: preset.prompts.map((prompt) => (prompt.identifier === identifier ? { ...prompt, enabled } : prompt)) };
}
