import { CARD_POST_HISTORY_ID, CARD_SYSTEM_PROMPT_ID } from '../importers/character-card.js';
import { findMacros } from '../macros.js';
import type { PromptEntry } from '../preset.js';

/**
 * What kind of character text a prompt carries:
 * - `definition` — the card's definition fields (`{{description}}`, `{{personality}}`, `{{scenario}}`),
 *   which a DIO compiled prompt replaces;
 * - `cardPrompt` — the card's own prompts (`{{charPrompt}}`, `{{charInstruction}}`, `{{charJailbreak}}`,
 *   `{{charDepthPrompt}}`, `{{creatorNotes}}`, or an enabled quarantined card prompt).
 */
export type CharacterTextKind = 'definition' | 'cardPrompt';

/** One prompt that puts character text into the actor's messages. */
export interface CharacterTextFinding {
  /** The prompt's identifier and display name, for a message the user can act on. */
  readonly identifier: string;
  readonly name: string;
  /** Position in the preset's prompt list. */
  readonly index: number;
  readonly kind: CharacterTextKind;
  /** What it carries: macro names (`description`, `charPrompt`, …) or `cardText` for a quarantined card prompt. */
  readonly fields: readonly string[];
  /**
   * True for SillyTavern's definition markers (`charDescription`, `charPersonality`, `scenario`)
   * whose whole content is their field: the parts of a preset {@link prepareForDio} always moves
   * into the `roleplay` prompt.
   */
  readonly marker: boolean;
  /** True when the text comes from an `overrides` entry rather than the prompt itself. */
  readonly viaOverride: boolean;
}

/** The card-definition fields, by the lower-case macro name that reads them. */
const DEFINITION_MACROS: ReadonlyMap<string, string> = new Map([
  ['description', 'description'],
  ['personality', 'personality'],
  ['scenario', 'scenario'],
]);

/** SillyTavern's macros for the card's own prompts, by lower-case macro name. */
const CARD_PROMPT_MACROS: ReadonlyMap<string, string> = new Map([
  ['charprompt', 'charPrompt'],
  ['charinstruction', 'charInstruction'],
  ['charjailbreak', 'charJailbreak'],
  ['chardepthprompt', 'charDepthPrompt'],
  ['creatornotes', 'creatorNotes'],
  ['charcreatornotes', 'charCreatorNotes'],
]);

/** Identifiers of SillyTavern's character-definition markers (as the preset importer keeps them). */
export const DEFINITION_MARKER_IDS: ReadonlySet<string> = new Set(['charDescription', 'charPersonality', 'scenario']);

// A marker imported from SillyTavern holds exactly its field macro; once a user edits the text it is
// a custom prompt, and moving it into the roleplay prompt would drop what they wrote.
function isDefinitionMarker(prompt: PromptEntry): boolean {
  if (!DEFINITION_MARKER_IDS.has(prompt.identifier)) return false;
  const macros = findMacros(prompt.content);
  const rest = macros.reduce((text, match) => text.replace(match.raw, ''), prompt.content).trim();
  return rest === '' && macros.length > 0 && macros.every((match) => DEFINITION_MACROS.has(match.name));
}

function textFields(text: string): { definition: string[]; cardPrompt: string[]; original: boolean } {
  const definition = new Set<string>();
  const cardPrompt = new Set<string>();
  let original = false;
  for (const match of findMacros(text)) {
    const field = DEFINITION_MACROS.get(match.name);
    if (field !== undefined) definition.add(field);
    const card = CARD_PROMPT_MACROS.get(match.name);
    if (card !== undefined) cardPrompt.add(card);
    if (match.name === 'original') original = true;
  }
  return { definition: [...definition], cardPrompt: [...cardPrompt], original };
}

/** Options of {@link findCharacterText}. */
export interface FindCharacterTextOptions {
  /** The `overrides` the preset is assembled with: an override's text is what the prompt renders. */
  readonly overrides?: Readonly<Record<string, string>> | undefined;
  /** Prompt indices to leave out (the DIO slot of rule 1, whose whole content is replaced). */
  readonly skip?: ReadonlySet<number>;
}

/**
 * Lists every enabled prompt that would put character text into the actor's messages: markers and
 * custom prompts that use the card's definition fields or its own prompts, and enabled quarantined
 * card prompts. Disabled prompts and the history/input markers carry nothing.
 * @param prompts - the preset's prompts
 * @param options - overrides in effect and prompts to skip
 * @returns one finding per kind per prompt, in preset order
 */
export function findCharacterText(prompts: readonly PromptEntry[], options: FindCharacterTextOptions = {}): CharacterTextFinding[] {
  const findings: CharacterTextFinding[] = [];
  prompts.forEach((prompt, index) => {
    if (prompt.enabled === false || prompt.marker !== undefined || options.skip?.has(index)) return;
    const override = options.overrides !== undefined && Object.hasOwn(options.overrides, prompt.identifier) && prompt.forbidOverrides !== true ? options.overrides[prompt.identifier] : undefined;
    const own = textFields(prompt.content);
    const replaced = override === undefined ? undefined : textFields(override);
    // An override renders its own text, plus the replaced prompt's where it says {{original}}.
    const effective = replaced === undefined ? own : replaced.original ? merge(replaced, own) : replaced;
    const viaOverride = replaced !== undefined;
    const base = { identifier: prompt.identifier, name: prompt.name, index, viaOverride } as const;
    if (effective.definition.length > 0) findings.push({ ...base, kind: 'definition', fields: effective.definition, marker: !viaOverride && isDefinitionMarker(prompt) });
    const cardPrompt = [...effective.cardPrompt];
    if ((prompt.identifier === CARD_SYSTEM_PROMPT_ID || prompt.identifier === CARD_POST_HISTORY_ID) && (!viaOverride || replaced?.original === true)) cardPrompt.push('cardText');
    if (cardPrompt.length > 0) findings.push({ ...base, kind: 'cardPrompt', fields: cardPrompt, marker: false });
  });
  return findings;
}

function merge(a: ReturnType<typeof textFields>, b: ReturnType<typeof textFields>): ReturnType<typeof textFields> {
  return { definition: [...new Set([...a.definition, ...b.definition])], cardPrompt: [...new Set([...a.cardPrompt, ...b.cardPrompt])], original: false };
}

/**
 * A sentence the user can act on for one finding (used in warnings and the CLI).
 * @param finding - a prompt that still carries character text
 * @returns the warning text
 */
export function describeCharacterText(finding: CharacterTextFinding): string {
  const what = finding.fields.map((field) => (field === 'cardText' ? "the card's own prompt text" : `{{${field}}}`)).join(', ');
  const who = `Prompt "${finding.name}" (${finding.identifier})${finding.viaOverride ? ' through its override' : ''}`;
  if (finding.kind === 'definition') {
    return `${who} still puts ${what} into the actor's messages: on DIO turns the old definition would stand next to the compiled prompt. Turn it off, remove the field, or prepare the preset for DIO${finding.marker ? '' : ' with this prompt absorbed'}.`;
  }
  return `${who} still puts ${what} into the actor's messages: card text that may describe the character next to the compiled prompt. Turn it off if the compiled prompt should be the only character definition.`;
}
