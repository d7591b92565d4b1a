import { type ActivatedWorldInfoEntry, type ChatMessage, formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { type DioSlot, DIO_VARIABLE, applyDioCompiledPrompt, assertDioSlotNotOverridden, locateDioSlot } from './dio-slot.js';
import { AssemblerError } from './errors.js';
import { type MacroEnvironment, type MacroFields, SLOT_VARIABLES, expandMacros, findMacros } from './macros.js';
import type { ChatInjection } from './injections.js';
import { type Preset, type PromptEntry, type PromptRole, defaultPreset, parsePreset } from './preset.js';
import { type RegexScript, RegexScriptSchema } from './regex/regex-script.js';
import { type GenerationType, buildChatBlock, continuedHistory, exampleDialogueMessages, finishMessages, formatMarker, worldInfoRegex } from './st-prompt-rules.js';
import { STORY_DRAFT_VARIABLE, type StoryDraftPlacement, readsStoryDraft, storyDraftMessage } from './story-draft.js';
import { ROLEPLAY_PROMPT_NAME } from './dio-slot.js';
import { type WorldInfoPlacementReport, prepareWorldInfo } from './world-info-placement.js';
import { seededRandom } from './macros/random.js';

/** Everything one assembly needs. */
export interface AssembleInput {
  readonly preset: Preset;
  /** Earlier turns, placed verbatim at the `chatHistory` marker. */
  readonly history: readonly ChatMessage[];
  /** The player's current input, placed at the `userInput` marker (or right after the history). */
  readonly input: string;
  /** A verified DIO compiled prompt; when present the DIO slot rules apply. */
  readonly compiledPrompt?: string;
  /** The story draft to hand to the actor. */
  readonly storyDraft?: { readonly text: string };
  /** Template variables for `{{getvar::…}}` (slot variables are not allowed here). */
  readonly variables?: Readonly<Record<string, string>>;
  readonly user?: string;
  readonly char?: string;
  readonly fields?: MacroFields;
  /**
   * Replacement content by prompt identifier; the replaced text is `{{original}}`. On a turn with
   * a compiled prompt, an entry for the DIO slot's prompt is an error (`DIO_SLOT_OVERRIDDEN`).
   */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly unknownMacros?: 'keep' | 'error';
  /** Instruction for the default story-draft message. */
  readonly storyDraftInstruction?: string;
  /** World info activated this turn (`contextKeys.worldInfo`), placed at SillyTavern's positions. */
  readonly worldInfo?: { readonly entries: readonly ActivatedWorldInfoEntry[] };
  /** Global (per-user) variables; the values after this turn are in the result's `globalVariables`. */
  readonly globalVariables?: Readonly<Record<string, string>>;
  /** `{{model}}`. */
  readonly model?: string;
  /** Group member names (`{{group}}`; names are prefixed under `names_behavior: default`). */
  readonly group?: readonly string[];
  /** Identity of the chat: seeds `{{pick}}` (stable per chat and position). */
  readonly chatId?: string;
  /** Seed of the turn's `{{random}}`/`{{roll}}` stream (use the turn id so a replay is identical). */
  readonly seed?: string;
  /** Clock for the time macros (default `Date.now`). */
  readonly now?: () => number;
  /** IANA time zone for the time macros (default the process's). */
  readonly timeZone?: string;
  /** The card's depth prompt (`extensions.depth_prompt`): an in-chat injection at its depth. */
  readonly depthPrompt?: { readonly prompt: string; readonly depth: number; readonly role: PromptRole };
  /** The card's regex scripts (`extensions.regex_scripts`), run after the preset's. */
  readonly regexScripts?: readonly RegexScript[];
  /**
   * The card's `system_prompt` (replaces the preset's `main` prompt; `{{original}}` inside is the
   * replaced text) and `post_history_instructions` (replaces `jailbreak`). Applied unless
   * `useCardPrompts` is false; an explicit `overrides` entry wins.
   */
  readonly cardPrompts?: { readonly systemPrompt?: string; readonly postHistoryInstructions?: string };
  /** Set false to ignore {@link cardPrompts} (default true, as the V2 card spec asks). */
  readonly useCardPrompts?: boolean;
  /** `normal` (default), `continue` (the last reply) or `impersonate` (write as the user). */
  readonly generationType?: GenerationType;
}

/** What {@link assemble} returns. */
export interface AssembleResult {
  /** The actor's messages (the kernel's `prepared.history`). */
  readonly messages: ChatMessage[];
  /** Variables after expansion (including `setvar` writes and slot bindings). */
  readonly variables: Record<string, string>;
  /** Where the DIO prompt went, when there was one. */
  readonly dioSlot: DioSlot | undefined;
  readonly storyDraftPlacement: StoryDraftPlacement;
  /** Where the world info went, when there was any. */
  readonly worldInfoPlacement: WorldInfoPlacementReport | undefined;
  /** Global variables after expansion (write them back to the user's store). */
  readonly globalVariables: Record<string, string>;
  /** Names of unknown macros left as text, each once, in order of appearance. */
  readonly unknownMacros: string[];
  /** Macros or regex scripts that could not run (their text was kept), in words. */
  readonly warnings: string[];
  /**
   * On a `continue`: what goes between the reply being continued and its continuation in the
   * saved reply (the preset's `continue_postfix` as SillyTavern applies it; '' for nothing). The
   * plugin hands it to the kernel as `contextKeys.continuationJoin`. Absent on other turns.
   */
  readonly continuationJoin?: string;
}

/** The schema `assemble` checks its whole input with (exported for the package's tests). */
export const inputSchema = z.looseObject({
  // Only "is a list" here: checkHistory checks the messages in a plain loop (the long part).
  history: z.custom<unknown[]>((value) => Array.isArray(value), 'expected an array'),
  input: z.string(),
  compiledPrompt: z.string().optional(),
  storyDraft: z.looseObject({ text: z.string() }).optional(),
  variables: z.record(z.string(), z.string()).optional(),
  user: z.string().optional(),
  char: z.string().optional(),
  overrides: z.record(z.string(), z.string()).optional(),
  unknownMacros: z.enum(['keep', 'error']).optional(),
  storyDraftInstruction: z.string().optional(),
  worldInfo: z
    .looseObject({
      entries: z.array(
        z.looseObject({
          content: z.string(),
          position: z.enum(['before', 'after', 'authorsNoteTop', 'authorsNoteBottom', 'examplesTop', 'examplesBottom', 'atDepth', 'outlet']),
          outletName: z.string().optional(),
          depth: z.number().int().min(0),
          role: z.enum(['system', 'user', 'assistant']),
        }),
      ),
    })
    .optional(),
  globalVariables: z.record(z.string(), z.string()).optional(),
  model: z.string().optional(),
  group: z.array(z.string()).optional(),
  chatId: z.string().optional(),
  seed: z.string().optional(),
  now: z.custom<() => number>((value) => typeof value === 'function').optional(),
  timeZone: z.string().optional(),
  depthPrompt: z.looseObject({ prompt: z.string(), depth: z.number().int().min(0), role: z.enum(['system', 'user', 'assistant']) }).optional(),
  regexScripts: z.array(RegexScriptSchema).max(1000).optional(),
  cardPrompts: z.looseObject({ systemPrompt: z.string().optional(), postHistoryInstructions: z.string().optional() }).optional(),
  useCardPrompts: z.boolean().optional(),
  generationType: z.enum(['normal', 'continue', 'impersonate']).optional(),
});

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Checks the history's messages. Hand-rolled instead of zod: the history is the long part of
 * every turn (hundreds of messages), and this check is all it needs.
 * @throws {AssemblerError} ASSEMBLE_INPUT_INVALID naming the first bad message
 */
export function checkHistory(history: readonly unknown[]): void {
  for (let index = 0; index < history.length; index++) {
    const message = history[index] as { role?: unknown; content?: unknown } | null;
    if (typeof message !== 'object' || message === null || !ROLES.has(message.role as string) || typeof message.content !== 'string') {
      throw new AssemblerError('ASSEMBLE_INPUT_INVALID', `Invalid assemble input: history.${index} must be {role: system|user|assistant|tool, content: string}`, { details: { index } });
    }
  }
}

// A preset is validated once per object: the plugin passes the same (readonly) preset every turn,
// and a 300-prompt preset costs more to check than to assemble.
const validatedPresets = new WeakMap<object, Preset>();

/**
 * The plugin's own preset, checked at boot and never again: `validated` is the preset the
 * plugin's config schema already parsed at boot (it is remembered as valid as is), or, without
 * one, the default preset, checked here once.
 * @param validated - the boot-validated preset from the plugin's config, if any
 * @returns the preset to assemble with on every turn
 */
export function bootPreset(validated: Preset | undefined): Preset {
  const preset = validated ?? parsePreset(defaultPreset());
  validatedPresets.set(preset, preset);
  return preset;
}

function validPreset(preset: Preset): Preset {
  const known = typeof preset === 'object' && preset !== null ? validatedPresets.get(preset) : undefined;
  if (known !== undefined) return known;
  const parsed = parsePreset(preset);
  if (typeof preset === 'object' && preset !== null) validatedPresets.set(preset, parsed);
  return parsed;
}

function initialVariables(variables: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of Object.entries(variables ?? {})) {
    // Slot variables come only from the slot rules, so a stale app variable can never pose as DIO content.
    if (SLOT_VARIABLES.has(name)) throw new AssemblerError('MACRO_RESERVED_VARIABLE', `Variable "${name}" is bound by the slot rules and cannot be passed in`, { details: { variable: name } });
    map.set(name, value);
  }
  return map;
}

// The card's own prompts replace the preset's main and post-history prompts, as SillyTavern does
// (`{{original}}` keeps the preset's text); an explicit override for the same prompt wins.
function effectiveOverrides(input: AssembleInput, prompts: readonly PromptEntry[], dioSlot: DioSlot | undefined, warnings: string[]): Readonly<Record<string, string>> | undefined {
  if (input.useCardPrompts === false || input.cardPrompts === undefined) return input.overrides;
  const result: Record<string, string> = {};
  const card: [string, string | undefined][] = [
    ['main', input.cardPrompts.systemPrompt],
    ['jailbreak', input.cardPrompts.postHistoryInstructions],
  ];
  for (const [identifier, text] of card) {
    if (text === undefined || text.trim() === '' || !prompts.some((prompt) => prompt.identifier === identifier)) continue;
    if (dioSlot?.identifier === identifier) {
      warnings.push(`The card's prompt for "${identifier}" is not applied: that prompt holds the DIO slot this turn`);
      continue;
    }
    result[identifier] = text;
  }
  return { ...result, ...input.overrides };
}

function promptText(prompt: PromptEntry, overrides: Readonly<Record<string, string>> | undefined, env: MacroEnvironment): string {
  // Own keys only: an identifier such as `constructor` must not read Object.prototype.
  const override = overrides !== undefined && Object.hasOwn(overrides, prompt.identifier) ? overrides[prompt.identifier] : undefined;
  if (override === undefined || prompt.forbidOverrides === true) return expandMacros(prompt.content, env);
  // `{{original}}` is the replaced prompt, expanded first so its own macros resolve too.
  const usesOriginal = findMacros(override).some((match) => match.name === 'original');
  const original = usesOriginal ? expandMacros(prompt.content, env) : '';
  return expandMacros(override, { ...env, original });
}

/**
 * Turns a preset, the history, the current input and the turn's materials into the actor's
 * messages. History messages are placed verbatim, never dropped or reordered; prompts are
 * expanded in order with one shared variable map (so `setvar` in an early prompt is visible later).
 * Empty prompts (after expansion) and disabled prompts are left out; markers are always placed.
 * @param input - preset, history, input, DIO prompt, story draft, variables and names
 * @returns the messages and what was placed where
 * @throws {AssemblerError} PRESET_INVALID, ASSEMBLE_INPUT_INVALID, every DIO_* code of
 *   {@link applyDioCompiledPrompt}, DIO_SLOT_OVERRIDDEN (an override targets the DIO slot's prompt), MACRO_SLOT_VARIABLE_UNSET, MACRO_RESERVED_VARIABLE, MACRO_UNKNOWN
 */
export function assemble(input: AssembleInput): AssembleResult {
  checkAssembleInput(inputSchema, input);
  checkHistory(input.history);
  return assembleChecked(input);
}

/**
 * The part of an assemble input that changes per turn in the plugin (context values, a turn's
 * actor profile, the loaded global variables): the plugin checks only this per turn; its boot
 * options were checked by its config schema at boot.
 */
export const turnPartsSchema = inputSchema.partial();

/**
 * Checks `value` against `schema` (an assemble input, or the per-turn part of one).
 * @throws {AssemblerError} ASSEMBLE_INPUT_INVALID naming every bad field
 */
export function checkAssembleInput(schema: z.ZodType, value: unknown): void {
  const checked = schema.safeParse(value);
  if (!checked.success) throw new AssemblerError('ASSEMBLE_INPUT_INVALID', `Invalid assemble input: ${formatIssues(checked.error)}`);
}

/**
 * {@link assemble} without the input check: for a caller that checked every field once (the
 * plugin, which fits the history to the token budget by assembling several times per turn).
 * The preset is still checked once per preset object.
 * @param input - an input whose fields were all checked
 * @returns the messages and what was placed where
 */
export function assembleChecked(input: AssembleInput): AssembleResult {
  let prompts: readonly PromptEntry[] = validPreset(input.preset).prompts;
  const variables = initialVariables(input.variables);
  let dioSlot: DioSlot | undefined;
  if (input.compiledPrompt !== undefined) {
    dioSlot = locateDioSlot(prompts);
    assertDioSlotNotOverridden(prompts, dioSlot, input.overrides);
    const applied = applyDioCompiledPrompt(prompts, input.compiledPrompt);
    prompts = applied.prompts;
    variables.set(DIO_VARIABLE, applied.variables[DIO_VARIABLE] ?? '');
  }
  const draft = input.storyDraft?.text;
  let storyDraftPlacement: StoryDraftPlacement = 'none';
  if (draft !== undefined) {
    storyDraftPlacement = prompts.some((prompt) => prompt.enabled !== false && readsStoryDraft(prompt)) ? 'variable' : 'beforeInput';
    if (storyDraftPlacement === 'variable') variables.set(STORY_DRAFT_VARIABLE, draft);
  }
  const warnings: string[] = [];
  // Macro names are case-insensitive: `{{Wander}}` and `{{wander}}` are one name, reported as first written.
  const unknown = new Map<string, string>();
  const overrides = effectiveOverrides(input, prompts, dioSlot, warnings);
  const settings = validPreset(input.preset).settings ?? {};
  // A continue turn's reply being continued carries the continue postfix, in every use below.
  const continued = input.generationType === 'continue' ? continuedHistory(input.history, settings) : undefined;
  const history = continued?.history ?? input.history;
  const globals = new Map(Object.entries(input.globalVariables ?? {}));
  const user = input.user ?? 'User';
  const char = input.char ?? 'Character';
  let env: MacroEnvironment = {
    variables,
    globalVariables: globals,
    allowSlotWrites: false,
    unknownMacros: input.unknownMacros ?? 'keep',
    user,
    char,
    input: input.input,
    messages: [...history, { role: 'user', content: input.input }],
    random: seededRandom(input.seed ?? ''),
    onUnknownMacro: (name) => {
      if (!unknown.has(name.toLowerCase())) unknown.set(name.toLowerCase(), name);
    },
    onWarning: (message) => warnings.push(message),
    ...(input.fields !== undefined ? { fields: input.fields } : {}),
    ...(input.model !== undefined ? { model: input.model } : {}),
    ...(input.group !== undefined ? { group: input.group } : {}),
    ...(input.chatId !== undefined ? { chatId: input.chatId } : {}),
    ...(input.now !== undefined ? { now: input.now } : {}),
    ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
  };

  const messages: ChatMessage[] = [];
  const regexScripts = [...(validPreset(input.preset).regexScripts ?? []), ...(input.regexScripts ?? [])];
  // World info: macros, then the world-info regex scripts (SillyTavern rewrites entries this way).
  const expandWorldInfo = (text: string): string => worldInfoRegex(expandMacros(text, env), regexScripts, env, warnings);
  const worldInfo = input.worldInfo !== undefined && input.worldInfo.entries.length > 0 ? prepareWorldInfo(prompts, input.worldInfo.entries, expandWorldInfo, input.fields?.mesExamples) : undefined;
  if (worldInfo) {
    for (const [name, value] of Object.entries(worldInfo.variables)) variables.set(name, value);
    if (worldInfo.mesExamples !== undefined) env = { ...env, fields: { ...input.fields, mesExamples: worldInfo.mesExamples } };
    // The prompts' `{{outlet::name}}` read them (entry contents were expanded before: as in ST,
    // an outlet macro inside world info itself is empty).
    env = { ...env, outlets: worldInfo.outlets };
  }
  const roleplayAt = prompts.findIndex((prompt) => prompt.name === ROLEPLAY_PROMPT_NAME && prompt.enabled !== false && prompt.marker === undefined);
  let fallbackPlaced = false;
  const placeFallback = (text: string | undefined): void => {
    if (text !== undefined && text !== '') messages.push({ role: 'system', content: text });
  };
  const injections: ChatInjection[] = [];
  const inputText = input.input === '' ? expandMacros(settings.sendIfEmpty ?? '', env) : input.input;
  const inputMessage: ChatMessage | undefined = inputText === '' ? undefined : { role: 'user', content: inputText };
  const draftMessage: ChatMessage | undefined =
    storyDraftPlacement === 'beforeInput' && draft !== undefined ? { role: 'system', content: storyDraftMessage(draft, input.storyDraftInstruction) } : undefined;
  let chatAt = -1;
  let inputAt = -1;
  const keepUnsquashed = new Set<ChatMessage>();
  const placePrompt = (prompt: PromptEntry): void => {
    if (prompt.enabled === false) return;
    // A story-draft prompt only appears on turns that have a draft (never as an empty slot).
    if (draft === undefined && readsStoryDraft(prompt)) return;
    if (prompt.identifier === 'dialogueExamples' && prompt.content.trim() === '{{mesExamples}}') {
      messages.push(...exampleDialogueMessages(expandMacros(prompt.content, env), settings, env, { user, char }));
      return;
    }
    const content = formatMarker(prompt, promptText(prompt, overrides, env), settings, env);
    if (content.trim() === '') return;
    if (prompt.injectionDepth !== undefined) {
      injections.push({ content, role: prompt.role, depth: prompt.injectionDepth, ...(prompt.injectionOrder !== undefined ? { order: prompt.injectionOrder } : {}) });
      return;
    }
    const message: ChatMessage = { role: prompt.role, content };
    // The DIO prompt stays its own message: squashing must not blur the one slot it went into.
    if (dioSlot !== undefined && prompt.identifier === dioSlot.identifier) keepUnsquashed.add(message);
    messages.push(message);
  };
  for (const [index, prompt] of prompts.entries()) {
    if (prompt.marker === 'chatHistory') {
      // World info with no place in this preset (and no roleplay prompt) goes before the history.
      if (!fallbackPlaced) {
        placeFallback(worldInfo?.fallbackBefore);
        placeFallback(worldInfo?.fallbackAfter);
        fallbackPlaced = true;
      }
      chatAt = messages.length;
      continue;
    }
    if (prompt.marker === 'userInput') {
      inputAt = messages.length;
      continue;
    }
    // Without worldInfoBefore/After prompts, world info goes around the character's prompt.
    const aroundRoleplay = index === roleplayAt && !fallbackPlaced;
    if (aroundRoleplay) placeFallback(worldInfo?.fallbackBefore);
    placePrompt(prompt);
    if (aroundRoleplay) {
      placeFallback(worldInfo?.fallbackAfter);
      fallbackPlaced = true;
    }
  }
  if (input.depthPrompt !== undefined) {
    const content = expandMacros(input.depthPrompt.prompt, env);
    if (content.trim() !== '') injections.push({ content, role: input.depthPrompt.role, depth: input.depthPrompt.depth, extension: true });
  }
  // World-info @depth entries and the author's note are extension prompts, as in SillyTavern.
  for (const injection of worldInfo?.injections ?? []) injections.push({ ...injection, extension: true });
  const block = buildChatBlock({
    history,
    inputMessage,
    beforeInput: draftMessage,
    injections,
    settings,
    regexScripts,
    env,
    names: { user, char, group: (input.group?.length ?? 0) > 0 },
    warn: (message) => warnings.push(message),
    keepUnsquashed,
    type: input.generationType ?? 'normal',
  });
  // The input (and what the injections put after it) goes to the userInput marker when there is one.
  if (inputAt >= 0 && inputAt >= chatAt) {
    messages.splice(inputAt, 0, ...block.fromInput);
    messages.splice(Math.max(chatAt, 0), 0, ...block.beforeInput);
  } else if (inputAt >= 0) {
    messages.splice(chatAt, 0, ...block.beforeInput);
    messages.splice(inputAt, 0, ...block.fromInput);
  } else {
    messages.splice(chatAt < 0 ? messages.length : chatAt, 0, ...block.beforeInput, ...block.fromInput);
  }
  const finished = finishMessages(messages, { settings, env, type: input.generationType ?? 'normal', keepUnsquashed });
  return {
    messages: finished,
    variables: Object.fromEntries(variables),
    dioSlot,
    storyDraftPlacement,
    globalVariables: Object.fromEntries(globals),
    unknownMacros: [...unknown.values()],
    warnings,
    worldInfoPlacement: worldInfo?.report,
    ...(continued ? { continuationJoin: continued.join } : {}),
  };
}
