import type { ActivatedWorldInfoEntry, ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { type DioSlot, DIO_VARIABLE, applyDioCompiledPrompt, assertDioSlotNotOverridden, locateDioSlot } from './dio-slot.js';
import { AssemblerError, describeIssues } from './errors.js';
import { type MacroEnvironment, type MacroFields, SLOT_VARIABLES, expandMacros, findMacros } from './macros.js';
import { type Preset, type PromptEntry, parsePreset } from './preset.js';
import { STORY_DRAFT_VARIABLE, type StoryDraftPlacement, readsStoryDraft, storyDraftMessage } from './story-draft.js';
import { ROLEPLAY_PROMPT_NAME } from './dio-slot.js';
import { type WorldInfoPlacementReport, injectAtDepth, injectionMessage, prepareWorldInfo } from './world-info-placement.js';

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
}

const inputSchema = z.looseObject({
  history: z.array(z.unknown()),
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
          position: z.enum(['before', 'after', 'authorsNoteTop', 'authorsNoteBottom', 'examplesTop', 'examplesBottom', 'atDepth']),
          depth: z.number().int().min(0),
          role: z.enum(['system', 'user', 'assistant']),
        }),
      ),
    })
    .optional(),
});

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

// Hand-rolled instead of zod: the history is the long part of every turn (hundreds of messages),
// and this check is all it needs.
function checkHistory(history: readonly unknown[]): void {
  for (let index = 0; index < history.length; index++) {
    const message = history[index] as { role?: unknown; content?: unknown } | null;
    if (typeof message !== 'object' || message === null || !ROLES.has(message.role as string) || typeof message.content !== 'string') {
      throw new AssemblerError('ASSEMBLE_INPUT_INVALID', `Invalid assemble input: history.${index} must be {role: system|user|assistant|tool, content: string}`, { index });
    }
  }
}

function initialVariables(variables: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of Object.entries(variables ?? {})) {
    // Slot variables come only from the slot rules, so a stale app variable can never pose as DIO content.
    if (SLOT_VARIABLES.has(name)) throw new AssemblerError('MACRO_RESERVED_VARIABLE', `Variable "${name}" is bound by the slot rules and cannot be passed in`, { variable: name });
    map.set(name, value);
  }
  return map;
}

function promptText(prompt: PromptEntry, input: AssembleInput, env: MacroEnvironment): string {
  // Own keys only: an identifier such as `constructor` must not read Object.prototype.
  const override = input.overrides !== undefined && Object.hasOwn(input.overrides, prompt.identifier) ? input.overrides[prompt.identifier] : undefined;
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
  const checked = inputSchema.safeParse(input);
  if (!checked.success) throw new AssemblerError('ASSEMBLE_INPUT_INVALID', `Invalid assemble input: ${describeIssues(checked.error.issues)}`);
  checkHistory(input.history);
  let prompts: readonly PromptEntry[] = parsePreset(input.preset).prompts;
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
  let env: MacroEnvironment = {
    variables,
    allowSlotWrites: false,
    unknownMacros: input.unknownMacros ?? 'keep',
    ...(input.user !== undefined ? { user: input.user } : {}),
    ...(input.char !== undefined ? { char: input.char } : {}),
    ...(input.fields !== undefined ? { fields: input.fields } : {}),
  };

  const messages: ChatMessage[] = [];
  const worldInfo = input.worldInfo !== undefined && input.worldInfo.entries.length > 0 ? prepareWorldInfo(prompts, input.worldInfo.entries, (text) => expandMacros(text, env), input.fields?.mesExamples) : undefined;
  if (worldInfo) {
    for (const [name, value] of Object.entries(worldInfo.variables)) variables.set(name, value);
    if (worldInfo.mesExamples !== undefined) env = { ...env, fields: { ...input.fields, mesExamples: worldInfo.mesExamples } };
  }
  // The chat is the history plus the current input; in-chat injections count depth over both.
  const INPUT = Symbol('input');
  const chat = injectAtDepth<ChatMessage | typeof INPUT>([...input.history, INPUT], worldInfo?.injections ?? [], injectionMessage);
  const inputAt = chat.indexOf(INPUT);
  const beforeInput = chat.slice(0, inputAt) as ChatMessage[];
  const afterInput = chat.slice(inputAt + 1) as ChatMessage[];
  const roleplayAt = prompts.findIndex((prompt) => prompt.name === ROLEPLAY_PROMPT_NAME && prompt.enabled !== false && prompt.marker === undefined);
  let fallbackPlaced = false;
  const placeFallback = (text: string | undefined): void => {
    if (text !== undefined && text !== '') messages.push({ role: 'system', content: text });
  };

  const hasInputMarker = prompts.some((prompt) => prompt.marker === 'userInput');
  const placeInput = (): void => {
    if (storyDraftPlacement === 'beforeInput' && draft !== undefined) {
      messages.push({ role: 'system', content: storyDraftMessage(draft, input.storyDraftInstruction) });
    }
    messages.push({ role: 'user', content: input.input });
    for (const message of afterInput) messages.push(message);
  };
  const placePrompt = (prompt: PromptEntry): void => {
    if (prompt.enabled === false) return;
    // A story-draft prompt only appears on turns that have a draft (never as an empty slot).
    if (draft === undefined && readsStoryDraft(prompt)) return;
    const content = promptText(prompt, input, env);
    if (content.trim() === '') return;
    messages.push({ role: prompt.role, content });
  };
  for (const [index, prompt] of prompts.entries()) {
    if (prompt.marker === 'chatHistory') {
      // World info with no place in this preset (and no roleplay prompt) goes before the history.
      if (!fallbackPlaced) {
        placeFallback(worldInfo?.fallbackBefore);
        placeFallback(worldInfo?.fallbackAfter);
        fallbackPlaced = true;
      }
      for (const message of beforeInput) messages.push(message);
      if (!hasInputMarker) placeInput();
      continue;
    }
    if (prompt.marker === 'userInput') {
      placeInput();
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
  return { messages, variables: Object.fromEntries(variables), dioSlot, storyDraftPlacement, worldInfoPlacement: worldInfo?.report };
}
