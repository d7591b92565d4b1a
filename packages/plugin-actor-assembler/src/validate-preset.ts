import { type DioSlot, assertDioSlotNotOverridden, locateDioSlot } from './dio-slot.js';
import { AssemblerError, type AssemblerErrorCode } from './errors.js';
import { SLOT_VARIABLES, findMacros } from './macros.js';
import { type CharacterTextFinding, describeCharacterText, findCharacterText } from './dio-prepare/character-text.js';
import { remainingCharacterText } from './dio-prepare/prepare-for-dio.js';
import { type Preset, PresetSchema, presetRuleIssues } from './preset.js';
import { readsStoryDraft } from './story-draft.js';

/** One problem or note found by {@link validatePreset}. */
export interface PresetIssue {
  readonly code: AssemblerErrorCode;
  readonly message: string;
  /** Path into the preset (`prompts.3.identifier`) or the prompt identifier involved. */
  readonly path?: string;
}

/** The pre-flight report of a preset. */
export interface PresetReport {
  /** True when the preset is structurally valid (it may still refuse a DIO prompt). */
  readonly ok: boolean;
  /** The validated preset, when `ok`. */
  readonly preset: Preset | undefined;
  /** Structural problems (empty when `ok`). */
  readonly issues: readonly PresetIssue[];
  /**
   * Whether a DIO compiled prompt could be placed, where (the slot and the name of the prompt it
   * replaces), and if not why (same code the turn would fail with).
   */
  readonly dio: { readonly accepts: true; readonly slot: DioSlot; readonly name: string } | { readonly accepts: false; readonly reason: PresetIssue };
  /**
   * The DIO pre-flight: every enabled prompt that would still put character text (the card's
   * definition fields or its own prompts) into the actor's messages besides the DIO slot. When DIO
   * accepts the preset each is also a `DIO_CHARACTER_TEXT_REMAINS` warning; when it does not, these
   * are the prompts that carry the definition today (what `prepareForDio` would work with).
   */
  readonly characterText: readonly CharacterTextFinding[];
  /** Where a story draft would go: a `{{getvar::storyDraft}}` prompt, or the default message before the input. */
  readonly storyDraft: 'variable' | 'beforeInput';
  /** Non-fatal notes (e.g. a prompt setting a slot variable, which would fail at assembly). */
  readonly warnings: readonly PresetIssue[];
}

/** Options of {@link validatePreset}: the settings the preset will be assembled with. */
export interface ValidatePresetOptions {
  /**
   * The `overrides` the app will pass to `assemble` (or the plugin). An entry for the DIO slot's
   * prompt makes `dio.accepts` false with `DIO_SLOT_OVERRIDDEN`, the code a DIO turn would fail with.
   */
  readonly overrides?: Readonly<Record<string, string>>;
}

// validatePreset never throws, so options from untrusted config that are not a plain object are ignored.
function overridesRecord(value: unknown): Readonly<Record<string, string>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, string>) : undefined;
}

/**
 * Checks a preset ahead of time (at import, not mid-turn): its shape, whether it can take a DIO
 * compiled prompt and why not, which other prompts would still carry character text next to it
 * (the DIO pre-flight), and where a story draft would go. Never throws for bad input.
 * @param value - untrusted preset data
 * @param options - the overrides the preset will be used with (so an override of the DIO slot is caught here)
 * @returns the report
 */
export function validatePreset(value: unknown, options: ValidatePresetOptions = {}): PresetReport {
  const parsed = PresetSchema.safeParse(value);
  const prompts = parsed.success ? parsed.data.prompts : Array.isArray((value as Preset | undefined)?.prompts) ? (value as Preset).prompts : [];
  const issues: PresetIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ code: 'PRESET_INVALID' as const, message: issue.message, path: issue.path.map(String).join('.') }));
  // zod skips refinements once a field fails; report the list rules anyway so one pass shows everything.
  if (!parsed.success) {
    for (const issue of presetRuleIssues(prompts)) {
      const path = issue.path.map(String).join('.');
      if (!issues.some((known) => known.path === path && known.message === issue.message)) issues.push({ code: 'PRESET_INVALID', message: issue.message, path });
    }
  }
  let dio: PresetReport['dio'];
  const usable = prompts.filter((prompt) => typeof prompt?.name === 'string' && typeof prompt.content === 'string' && typeof prompt.identifier === 'string');
  const overrides = overridesRecord(options?.overrides);
  let characterText: CharacterTextFinding[] = [];
  try {
    const slot = locateDioSlot(usable);
    assertDioSlotNotOverridden(usable, slot, overrides);
    dio = { accepts: true, slot, name: usable[slot.index]?.name ?? slot.identifier };
    characterText = remainingCharacterText(usable, slot, overrides);
  } catch (error) {
    if (!AssemblerError.isInstance(error)) throw error;
    dio = { accepts: false, reason: { code: error.code, message: error.message } };
    characterText = findCharacterText(usable, { overrides });
  }
  const warnings: PresetIssue[] = [];
  if (dio.accepts) {
    for (const finding of characterText) warnings.push({ code: 'DIO_CHARACTER_TEXT_REMAINS', message: describeCharacterText(finding), path: finding.identifier });
  }
  for (const prompt of prompts) {
    if (typeof prompt?.content !== 'string' || prompt.enabled === false) continue;
    for (const match of findMacros(prompt.content)) {
      const name = match.args[0]?.trim() ?? '';
      if (match.name === 'setvar' && SLOT_VARIABLES.has(name)) {
        warnings.push({ code: 'MACRO_RESERVED_VARIABLE', message: `${match.raw} sets a slot variable and will fail at assembly`, path: prompt.identifier });
      }
      if (match.name === 'getvar' && name === 'dioCompiledPrompt') {
        warnings.push({ code: 'MACRO_SLOT_VARIABLE_UNSET', message: `${match.raw} fails on turns without a DIO prompt; use {{getvar::systemPrompt}} or a "roleplay" prompt`, path: prompt.identifier });
      }
    }
  }
  const storyDraft = prompts.some((prompt) => typeof prompt?.content === 'string' && prompt.enabled !== false && readsStoryDraft(prompt)) ? 'variable' : 'beforeInput';
  return { ok: parsed.success, preset: parsed.success ? parsed.data : undefined, issues, dio, characterText, storyDraft, warnings };
}
