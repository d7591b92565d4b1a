import type { ActivatedWorldInfoEntry } from '@troupe/kernel';
import { findMacros, isGetvar } from './macros.js';
import type { PromptEntry, PromptRole } from './preset.js';
import { asExampleBlock } from './shaping/example-dialogues.js';

/** The variable a preset reads to place world info before the character (`worldInfoBefore` marker). */
export const WORLD_INFO_BEFORE_VARIABLE = 'worldInfoBefore';
/** The variable a preset reads to place world info after the character (`worldInfoAfter` marker). */
export const WORLD_INFO_AFTER_VARIABLE = 'worldInfoAfter';
/** SillyTavern's default author's-note depth: where author's-note-top/bottom entries go. */
export const AUTHORS_NOTE_DEPTH = 4;

/** A message injected into the chat at a depth (0 = after the newest message, the input). */
export interface DepthInjection {
  readonly depth: number;
  readonly role: PromptRole;
  readonly content: string;
}

/** Where this turn's world info goes, ready for the assembler. */
export interface WorldInfoPlan {
  /** Joined `before` entries (for `{{getvar::worldInfoBefore}}`). */
  readonly before: string;
  /** Joined `after` entries (for `{{getvar::worldInfoAfter}}`). */
  readonly after: string;
  /** Example-message entries, placed before / after the card's examples in `{{mesExamples}}`. */
  readonly examplesTop: readonly string[];
  readonly examplesBottom: readonly string[];
  /** In-chat messages: author's-note entries and `atDepth` entries, one per (depth, role). */
  readonly injections: readonly DepthInjection[];
  /** Outlet entries by outlet name, joined: what `{{outlet::name}}` shows. */
  readonly outlets: Readonly<Record<string, string>>;
}

/**
 * Groups activated entries by SillyTavern position. Entries arrive in placement order (the
 * lorebook plugin's job); each content is expanded once (`expand`) and empty results are dropped.
 * Within one position entries are joined by newlines, as ST does; `atDepth` entries with the same
 * depth and role become one message; author's-note entries (top ones above bottom ones) go at
 * ST's default author's-note depth (4) as a system message, ahead of depth-4 system entries.
 * Outlet entries go only to their outlet, for `{{outlet::name}}`.
 * @param entries - activated entries in placement order
 * @param expand - macro expansion for entry content
 * @returns the plan
 */
export function planWorldInfo(entries: readonly ActivatedWorldInfoEntry[], expand: (text: string) => string): WorldInfoPlan {
  const lists = { before: [] as string[], after: [] as string[], authorsNoteTop: [] as string[], authorsNoteBottom: [] as string[], examplesTop: [] as string[], examplesBottom: [] as string[] };
  const depthEntries: { depth: number; role: PromptRole; content: string }[] = [];
  const outletParts = new Map<string, string[]>();
  for (const entry of entries) {
    // ST: "has position 'outlet' but no outlet name. Skipping." — it is placed nowhere.
    if (entry.position === 'outlet' && (entry.outletName ?? '') === '') continue;
    const content = expand(entry.content);
    if (content.trim() === '') continue;
    if (entry.position === 'atDepth') depthEntries.push({ depth: entry.depth, role: entry.role, content });
    else if (entry.position === 'outlet') {
      const name = entry.outletName ?? '';
      const parts = outletParts.get(name) ?? [];
      // ST walks the entries by descending order and pushes outlet entries (the other positions
      // unshift): an outlet reads in reverse placement order, highest order first.
      parts.unshift(content);
      outletParts.set(name, parts);
    } else lists[entry.position].push(content);
  }
  // ST's script.js: `setExtensionPrompt(inject_ids.CUSTOM_WI_OUTLET(key), value.join('\n'), extension_prompt_types.NONE, 0)`.
  const outlets: Record<string, string> = Object.create(null);
  for (const [name, parts] of outletParts) outlets[name] = parts.join('\n');
  const groups = new Map<string, { depth: number; role: PromptRole; parts: string[] }>();
  const add = (depth: number, role: PromptRole, content: string): void => {
    const key = `${depth}:${role}`;
    const group = groups.get(key) ?? { depth, role, parts: [] };
    group.parts.push(content);
    groups.set(key, group);
  };
  // ST joins every in-chat prompt of one depth and role into one message, the author's note
  // ("2_floating_prompt") sorting before the world-info depth prompts ("customDepthWI-…").
  const authorsNote = [...lists.authorsNoteTop, ...lists.authorsNoteBottom];
  if (authorsNote.length > 0) add(AUTHORS_NOTE_DEPTH, 'system', authorsNote.join('\n'));
  for (const entry of depthEntries) add(entry.depth, entry.role, entry.content);
  const injections: DepthInjection[] = [...groups.values()].map((group) => ({ depth: group.depth, role: group.role, content: group.parts.join('\n') }));
  return { before: lists.before.join('\n'), after: lists.after.join('\n'), examplesTop: lists.examplesTop, examplesBottom: lists.examplesBottom, injections, outlets };
}

/**
 * True when an enabled prompt reads a variable through `{{getvar::name}}`.
 * @param prompts - the preset's prompts
 * @param variable - the variable name
 * @returns whether some enabled prompt places it
 */
export function presetReadsVariable(prompts: readonly PromptEntry[], variable: string): boolean {
  return prompts.some((prompt) => prompt.enabled !== false && prompt.marker === undefined && prompt.content.includes(variable) && findMacros(prompt.content).some((match) => isGetvar(match, variable)));
}

/**
 * True when an enabled prompt places the example messages (`{{mesExamples}}`).
 * @param prompts - the preset's prompts
 */
export function presetReadsExamples(prompts: readonly PromptEntry[]): boolean {
  return prompts.some((prompt) => prompt.enabled !== false && prompt.marker === undefined && findMacros(prompt.content).some((match) => match.name === 'mesexamples'));
}

/** How one assembly placed the world info. */
export interface WorldInfoPlacementReport {
  /** `variable`: a prompt reads it; `fallback`: system message beside the character prompt; `none`: nothing to place. */
  readonly before: 'variable' | 'fallback' | 'none';
  readonly after: 'variable' | 'fallback' | 'none';
  /** Example-message entries went into `{{mesExamples}}` (`examples`) or, with no prompt placing examples, into `after`. */
  readonly examples: 'examples' | 'after' | 'none';
  /** In-chat messages inserted. */
  readonly injections: number;
}

/** What {@link prepareWorldInfo} hands back to the assembler. */
export interface PreparedWorldInfo {
  /** Variables to bind (`worldInfoBefore` / `worldInfoAfter`), when a prompt reads them. */
  readonly variables: Readonly<Record<string, string>>;
  /** The `{{mesExamples}}` value with example entries around the card's examples, when changed. */
  readonly mesExamples: string | undefined;
  /** Text for the fallback system messages (no prompt reads the variable). */
  readonly fallbackBefore: string;
  readonly fallbackAfter: string;
  readonly injections: readonly DepthInjection[];
  /** Outlet texts by name, for `{{outlet::name}}`. */
  readonly outlets: Readonly<Record<string, string>>;
  readonly report: WorldInfoPlacementReport;
}

/**
 * The card's examples with the example-message entries as dialogues of their own, where
 * SillyTavern puts them: it unshifts each top entry (so they come out in reverse placement order,
 * highest `order` first) and pushes each bottom entry (lowest `order` first). The card's text keeps
 * what `splitExampleDialogues` reads from it: from its first `<START>`, or all of it as one
 * dialogue, so an entry never merges into the card's examples or is cut off with their preamble.
 * @param card - the card's examples
 * @param top - top entries' texts in placement order
 * @param bottom - bottom entries' texts in placement order
 * @returns the joined `mes_example` text
 */
function examplesWithEntries(card: string, top: readonly string[], bottom: readonly string[]): string {
  const start = card.search(/<START>/i);
  const own = start >= 0 ? card.slice(start).trim() : asExampleBlock(card);
  return [...[...top].reverse().map(asExampleBlock), own, ...bottom.map(asExampleBlock)].filter((part) => part !== '').join('\n');
}

/**
 * Decides where this turn's world info goes in a preset: `before`/`after` through the preset's
 * `{{getvar::worldInfoBefore}}` / `{{getvar::worldInfoAfter}}` prompts (SillyTavern's markers, as the
 * preset importer maps them) or, when the preset has none, as system messages right before / after
 * the `roleplay` prompt (else before the chat history) so nothing is lost; example entries around
 * the card's examples in `{{mesExamples}}`, each its own dialogue (into `after` when no prompt
 * shows examples); the rest
 * as in-chat injections.
 * @param prompts - the preset's prompts (after the DIO slot rules)
 * @param entries - activated entries in placement order
 * @param expand - macro expansion for entry content
 * @param mesExamples - the card's example messages
 * @returns variables, examples text, fallback texts, injections and a report
 */
export function prepareWorldInfo(prompts: readonly PromptEntry[], entries: readonly ActivatedWorldInfoEntry[], expand: (text: string) => string, mesExamples: string | undefined): PreparedWorldInfo {
  const plan = planWorldInfo(entries, expand);
  const examples = [...plan.examplesTop, ...plan.examplesBottom];
  const showsExamples = presetReadsExamples(prompts);
  let after = plan.after;
  let examplesPlacement: WorldInfoPlacementReport['examples'] = 'none';
  let examplesText: string | undefined;
  if (examples.length > 0 && showsExamples) {
    examplesPlacement = 'examples';
    examplesText = examplesWithEntries(mesExamples ?? '', plan.examplesTop, plan.examplesBottom);
  } else if (examples.length > 0) {
    examplesPlacement = 'after';
    after = [after, ...examples].filter((part) => part !== '').join('\n');
  }
  const variables: Record<string, string> = {};
  let fallbackBefore = '';
  let fallbackAfter = '';
  const place = (variable: string, text: string): 'variable' | 'fallback' | 'none' => {
    if (text === '') return 'none';
    if (presetReadsVariable(prompts, variable)) {
      variables[variable] = text;
      return 'variable';
    }
    return 'fallback';
  };
  const before = place(WORLD_INFO_BEFORE_VARIABLE, plan.before);
  if (before === 'fallback') fallbackBefore = plan.before;
  const afterPlacement = place(WORLD_INFO_AFTER_VARIABLE, after);
  if (afterPlacement === 'fallback') fallbackAfter = after;
  return {
    variables,
    mesExamples: examplesText,
    fallbackBefore,
    fallbackAfter,
    injections: plan.injections,
    outlets: plan.outlets,
    report: { before, after: afterPlacement, examples: examplesPlacement, injections: plan.injections.length },
  };
}
