import { ROLEPLAY_PROMPT_NAME, type DioSlot, locateDioSlot } from '../dio-slot.js';
import { AssemblerError, type AssemblerErrorCode } from '../errors.js';
import { type Preset, type PromptEntry, type PromptRole, parsePreset } from '../preset.js';
import { type CharacterTextFinding, DEFINITION_MARKER_IDS, findCharacterText } from './character-text.js';

/**
 * Which prompts carrying the card's definition {@link prepareForDio} moves into the new `roleplay`
 * prompt: `'markers'` (default) only SillyTavern's definition markers; `'all'` also custom prompts
 * that embed `{{description}}`/`{{personality}}`/`{{scenario}}` (their own wording is then
 * replaced on DIO turns too); or the identifiers of the custom prompts to move, besides the markers.
 */
export type DioAbsorbOption = 'markers' | 'all' | readonly string[];

/** Options of {@link prepareForDio}. */
export interface PrepareForDioOptions {
  /** Which definition prompts to move into the `roleplay` prompt (default `'markers'`). */
  readonly absorb?: DioAbsorbOption;
  /** Identifier of the new prompt (default `dioRoleplay`, suffixed when taken). */
  readonly identifier?: string;
}

/** A prompt moved into the `roleplay` prompt (and turned off). */
export interface AbsorbedPrompt {
  readonly identifier: string;
  readonly name: string;
  readonly fields: readonly string[];
  /** True for a SillyTavern definition marker, false for a custom prompt. */
  readonly marker: boolean;
}

/** What {@link prepareForDio} did, in full: it never changes a preset without saying so. */
export interface DioPreparationReport {
  /**
   * - `ready` — the preset already has its one DIO slot; nothing was changed;
   * - `prepared` — a `roleplay` prompt was added and the prompts it replaces turned off;
   * - `refused` — the preset's slots are ambiguous or disabled; nothing was changed (see `reason`).
   */
  readonly status: 'ready' | 'prepared' | 'refused';
  /** The DIO slot of the returned preset (absent when refused). */
  readonly slot: DioSlot | undefined;
  /** Why the preset was left alone (refused only): the code a DIO turn would fail with. */
  readonly reason: { readonly code: AssemblerErrorCode; readonly message: string } | undefined;
  /** The added `roleplay` prompt (prepared only). */
  readonly roleplay:
    | {
        readonly identifier: string;
        readonly index: number;
        readonly role: PromptRole;
        /**
         * `definition` — at the first prompt that rendered the definition; `marker` — nothing enabled
         * rendered it, so at SillyTavern's (disabled) description marker; `beforeExamples` /
         * `beforeHistory` — no definition anywhere, so before the examples or the history.
         */
        readonly placement: 'definition' | 'marker' | 'beforeExamples' | 'beforeHistory';
        readonly absorbed: readonly AbsorbedPrompt[];
      }
    | undefined;
  /** Identifiers of prompts this preparation turned off. */
  readonly disabled: readonly string[];
  /** Enabled prompts that still carry character text next to the slot: each is a warning to act on. */
  readonly remaining: readonly CharacterTextFinding[];
  /** True when the compiled prompt will be the only character text (`remaining` is empty). */
  readonly clean: boolean;
  /** What changed in how the preset renders, in words. */
  readonly notes: readonly string[];
}

/** What {@link prepareForDio} returns. */
export interface DioPreparation {
  /** The prepared preset (the input preset, unchanged, when `ready` or `refused`). */
  readonly preset: Preset;
  readonly report: DioPreparationReport;
}

function uniqueIdentifier(prompts: readonly PromptEntry[], wanted: string): string {
  const taken = new Set(prompts.map((prompt) => prompt.identifier));
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}${n}`)) return `${wanted}${n}`;
}

function wantsAbsorbed(finding: CharacterTextFinding, absorb: DioAbsorbOption): boolean {
  if (finding.marker) return true;
  if (absorb === 'all') return true;
  return Array.isArray(absorb) && absorb.includes(finding.identifier);
}

/**
 * The enabled prompts (besides a rule-1 slot, whose whole content is replaced) that still carry
 * character text on a DIO turn.
 * @param prompts - the preset's prompts
 * @param slot - the slot DIO uses
 * @param overrides - the overrides the preset is assembled with
 * @returns the findings, in preset order
 */
export function remainingCharacterText(prompts: readonly PromptEntry[], slot: DioSlot, overrides?: Readonly<Record<string, string>>): CharacterTextFinding[] {
  return findCharacterText(prompts, { overrides, skip: slot.rule === 'roleplay' ? new Set([slot.index]) : new Set() });
}

function placement(prompts: readonly PromptEntry[], absorbed: readonly CharacterTextFinding[], kept: readonly CharacterTextFinding[]) {
  const first = absorbed[0] ?? kept[0];
  if (first !== undefined) return { index: first.index, placement: 'definition' as const };
  const marker = prompts.findIndex((prompt) => DEFINITION_MARKER_IDS.has(prompt.identifier));
  if (marker >= 0) return { index: marker, placement: 'marker' as const };
  const examples = prompts.findIndex((prompt) => prompt.identifier === 'dialogueExamples');
  if (examples >= 0) return { index: examples, placement: 'beforeExamples' as const };
  return { index: Math.max(0, prompts.findIndex((prompt) => prompt.marker === 'chatHistory')), placement: 'beforeHistory' as const };
}

// Enabled prompts between the first and the last moved prompt: their order relative to the
// definition changes, which the report says.
function betweenSources(prompts: readonly PromptEntry[], absorbed: readonly CharacterTextFinding[]): PromptEntry[] {
  const first = absorbed[0]?.index;
  const last = absorbed[absorbed.length - 1]?.index;
  if (first === undefined || last === undefined) return [];
  const moved = new Set(absorbed.map((finding) => finding.index));
  return prompts.slice(first + 1, last).filter((prompt, offset) => !moved.has(first + 1 + offset) && prompt.enabled !== false);
}

/**
 * Prepares a preset for DIO by the seed's rule 1, and says exactly what it did. A preset with no
 * DIO slot gets one `roleplay` prompt at the position of its character definition, holding that
 * definition as the preset rendered it (the contents of the prompts it replaces, in order), and
 * those prompts are turned off — so turns without a DIO prompt read the same definition, and DIO
 * turns put the compiled prompt in its place. SillyTavern's definition markers are always moved;
 * custom prompts that embed the fields only when `absorb` says so, otherwise each is reported in
 * `remaining`. A preset that already has its slot is left as it is (`ready`); one whose slots are
 * ambiguous (two `roleplay` prompts, several placeholders) or disabled is `refused` — never a
 * guess, and the turn would fail with the same code.
 * @param value - the preset (untrusted; validated)
 * @param options - which definition prompts to move, the new prompt's identifier
 * @returns the preset to use and the report
 * @throws {AssemblerError} PRESET_INVALID when `value` is not a valid preset
 */
export function prepareForDio(value: Preset, options: PrepareForDioOptions = {}): DioPreparation {
  const preset = parsePreset(value);
  const prompts = preset.prompts;
  const absorb = options.absorb ?? 'markers';
  let slot: DioSlot | undefined;
  try {
    slot = locateDioSlot(prompts);
  } catch (error) {
    if (!AssemblerError.isInstance(error)) throw error;
    if (error.code !== 'DIO_NO_SLOT') {
      const reason = { code: error.code, message: error.message };
      return { preset, report: { status: 'refused', slot: undefined, reason, roleplay: undefined, disabled: [], remaining: [], clean: false, notes: [] } };
    }
  }
  if (slot !== undefined) {
    const remaining = remainingCharacterText(prompts, slot);
    const notes = [slot.rule === 'roleplay' ? `The preset already has its "roleplay" prompt (${slot.identifier}); nothing was changed.` : `The preset already has its {{getvar::systemPrompt}} slot in "${slot.identifier}"; nothing was changed.`];
    return { preset, report: { status: 'ready', slot, reason: undefined, roleplay: undefined, disabled: [], remaining, clean: remaining.length === 0, notes } };
  }

  const definitions = findCharacterText(prompts).filter((finding) => finding.kind === 'definition');
  const absorbed = definitions.filter((finding) => wantsAbsorbed(finding, absorb));
  const kept = definitions.filter((finding) => !wantsAbsorbed(finding, absorb));
  const where = placement(prompts, absorbed, kept);
  const absorbedIds = new Set(absorbed.map((finding) => finding.identifier));
  const sources = prompts.filter((prompt) => absorbedIds.has(prompt.identifier));
  const role: PromptRole = sources[0]?.role ?? 'system';
  const identifier = uniqueIdentifier(prompts, options.identifier ?? 'dioRoleplay');
  // The definition as the preset rendered it: each replaced prompt's text, in preset order, one
  // paragraph each (SillyTavern sent them as separate messages; one prompt holds them now).
  const content = sources.map((prompt) => prompt.content.trim()).filter((text) => text !== '').join('\n\n');
  const roleplayPrompt: PromptEntry = { identifier, name: ROLEPLAY_PROMPT_NAME, role, content };
  const next: PromptEntry[] = [];
  prompts.forEach((prompt, index) => {
    if (index === where.index) next.push(roleplayPrompt);
    next.push(absorbedIds.has(prompt.identifier) ? { ...prompt, enabled: false } : prompt);
  });
  const prepared = parsePreset({ ...preset, prompts: next });
  const newSlot = locateDioSlot(prepared.prompts);
  const remaining = remainingCharacterText(prepared.prompts, newSlot);
  const notes: string[] = [];
  if (absorbed.length > 0) {
    notes.push(`Added "roleplay" prompt ${identifier} holding ${absorbed.map((finding) => `"${finding.name}"`).join(', ')}, which are now off.`);
  } else {
    notes.push(`Added an empty "roleplay" prompt ${identifier} (${where.placement === 'definition' ? 'at the first prompt that renders the definition' : `no enabled prompt renders the definition; placed ${where.placement === 'marker' ? "at SillyTavern's description marker" : where.placement === 'beforeExamples' ? 'before the dialogue examples' : 'before the chat history'}`}): it renders nothing until DIO fills it.`);
  }
  if (new Set(sources.map((prompt) => prompt.role)).size > 1) notes.push(`The moved prompts spoke with different roles; the "roleplay" prompt speaks as ${role}.`);
  const custom = absorbed.filter((finding) => !finding.marker);
  if (custom.length > 0) notes.push(`On DIO turns the compiled prompt also replaces the wording of ${custom.map((finding) => `"${finding.name}"`).join(', ')}, not only its card fields.`);
  const between = betweenSources(prompts, absorbed);
  if (between.length > 0) {
    notes.push(`The moved prompts now render together at the position of "${sources[0]?.name}", so ${between.map((prompt) => `"${prompt.name}"`).join(', ')} no longer stand${between.length === 1 ? 's' : ''} between them.`);
  }
  return {
    preset: prepared,
    report: {
      status: 'prepared',
      slot: newSlot,
      reason: undefined,
      roleplay: { identifier, index: where.index, role, placement: where.placement, absorbed: absorbed.map(({ identifier: id, name, fields, marker }) => ({ identifier: id, name, fields, marker })) },
      disabled: absorbed.map((finding) => finding.identifier),
      remaining,
      clean: remaining.length === 0,
      notes,
    },
  };
}
