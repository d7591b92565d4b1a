import { type ChatMessage, type PluginDefinition, type PreparedActorPrompt, type TurnContext, contextKeys, definePlugin } from '@troupe/kernel';
import { throwIfAborted } from '@troupe/kernel/util';
import * as z from 'zod';
import { actorProfileKey } from './actor-profile.js';
import { type AssembleInput, type AssembleResult, assembleChecked, bootPreset, checkAssembleInput, checkHistory, turnPartsSchema } from './assemble.js';
import { contextTrimmedData, fitHistoryToBudget } from './budget/index.js';
import { AssemblerError } from './errors.js';
import { CONTEXT_TRIMMED_EVENT } from './budget/trim-event.js';
import type { GlobalVariableStore } from './global-variables.js';
import type { MacroFields } from './macros.js';
import { type Preset, PresetSchema, type PromptRole } from './preset.js';
import { applyRegexScripts } from './regex/apply-scripts.js';
import { type RegexScript, RegexScriptSchema } from './regex/regex-script.js';
import { expandMacros } from './macros.js';

/** The plugin's name (also its npm package name). */
export const ACTOR_ASSEMBLER_PLUGIN_NAME = '@troupe/plugin-actor-assembler';
/** Event queued when a DIO compiled prompt was placed (`{rule, identifier}`). */
export const DIO_APPLIED_EVENT = 'actor-assembler/dio-applied';
/**
 * Event queued when the DIO compiled prompt was left out of a turn because the prompt with it does
 * not fit the chat's token budget (`{reason: 'context-budget', promptTokens, budgetTokens,
 * contextTokens, responseTokens, compiledPromptCharacters}`): the turn played the normal character
 * prompt instead of failing. Raise the context size or revoke requirements.
 */
export const DIO_DROPPED_EVENT = 'actor-assembler/dio-dropped';
/** Event queued once per turn that met unknown macros (`{names}`): what the preset relies on that the engine lacks. */
export const UNKNOWN_MACROS_EVENT = 'actor-assembler/unknown-macros';
/** Event queued when macros or regex scripts could not run (`{warnings}`); their text was kept. */
export const ASSEMBLY_WARNINGS_EVENT = 'actor-assembler/warnings';

/** Schema of the plugin's options (validated at boot, so a bad preset fails the harness, not a turn). */
export const ActorAssemblerOptionsSchema = z
  .object({
    preset: PresetSchema.optional(),
    user: z.string().max(1024).optional(),
    char: z.string().max(1024).optional(),
    fields: z
      .object({
        description: z.string(),
        personality: z.string(),
        scenario: z.string(),
        persona: z.string(),
        mesExamples: z.string(),
        charPrompt: z.string(),
        charInstruction: z.string(),
        charDepthPrompt: z.string(),
        charVersion: z.string(),
        creatorNotes: z.string(),
      })
      .partial()
      .strict()
      .optional(),
    variables: z.record(z.string(), z.string()).optional(),
    overrides: z.record(z.string(), z.string()).optional(),
    unknownMacros: z.enum(['keep', 'error']).optional(),
    storyDraftInstruction: z.string().min(1).optional(),
    cardPrompts: z.object({ systemPrompt: z.string(), postHistoryInstructions: z.string() }).partial().strict().optional(),
    useCardPrompts: z.boolean().optional(),
    depthPrompt: z.object({ prompt: z.string(), depth: z.number().int().min(0).max(10_000), role: z.enum(['system', 'user', 'assistant']) }).strict().optional(),
    regexScripts: z.array(RegexScriptSchema).max(1000).optional(),
    model: z.string().max(1024).optional(),
    group: z.array(z.string().max(1024)).max(1000).optional(),
    timeZone: z
      .string()
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, 'unknown time zone')
      .optional(),
    globalVariables: z
      .custom<GlobalVariableStore>((value) => typeof value === 'object' && value !== null && typeof (value as GlobalVariableStore).load === 'function' && typeof (value as GlobalVariableStore).save === 'function', 'a GlobalVariableStore {load, save}')
      .optional(),
  })
  .strict();

/** Options of {@link actorAssemblerPlugin} (all optional). */
export interface ActorAssemblerOptions {
  /** The prompt preset (default {@link defaultPreset}); validated at boot. */
  readonly preset?: Preset;
  /** Name for `{{user}}`. */
  readonly user?: string;
  /** Name for `{{char}}`. */
  readonly char?: string;
  /** Character fields for `{{description}}`, … (see `characterMacroFields`). */
  readonly fields?: MacroFields;
  /** Template variables; `contextKeys.templateVariables` overrides them per turn. */
  readonly variables?: Readonly<Record<string, string>>;
  /**
   * Replacement content by prompt identifier (`{{original}}` = the replaced text). An entry for the
   * DIO slot's prompt fails DIO turns with `DIO_SLOT_OVERRIDDEN`; check with `validatePreset(preset, {overrides})`.
   */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Unknown macros: keep as text (default) or fail. */
  readonly unknownMacros?: 'keep' | 'error';
  /** Instruction of the default story-draft message. */
  readonly storyDraftInstruction?: string;
  /**
   * The card's `system_prompt` / `post_history_instructions`: they replace the preset's `main` /
   * `jailbreak` prompts (on by default; `useCardPrompts: false` turns them off).
   */
  readonly cardPrompts?: { readonly systemPrompt?: string; readonly postHistoryInstructions?: string };
  readonly useCardPrompts?: boolean;
  /** The card's depth prompt (`ImportedCharacter.depthPrompt`), injected at its depth. */
  readonly depthPrompt?: { readonly prompt: string; readonly depth: number; readonly role: PromptRole };
  /** The card's regex scripts (`ImportedCharacter.regexScripts`), run after the preset's. */
  readonly regexScripts?: readonly RegexScript[];
  /** `{{model}}`; by default the actor model's name (the scenario's model, else the resolved model's id without its provider). */
  readonly model?: string;
  /** Group member names for `{{group}}`. */
  readonly group?: readonly string[];
  /** IANA time zone of the time macros (default the process's); the clock is the kernel's. */
  readonly timeZone?: string;
  /** Where global variables persist per user; without one they last for a single turn. */
  readonly globalVariables?: GlobalVariableStore;
}
type ActorAssemblerConfig = z.output<typeof ActorAssemblerOptionsSchema>;

/**
 * Splits the kernel's default `prepared.history` (`[...history, {role:'user', content: input}]`)
 * into the earlier turns and the current input. When the last message is not the current input
 * (another handler changed it), every message is kept as history and the input is placed anew.
 * @param messages - the prepared messages so far
 * @param input - the player's raw input
 * @returns history and input
 */
export function splitPreparedHistory(messages: readonly ChatMessage[], input: string): { history: readonly ChatMessage[]; input: string } {
  const last = messages[messages.length - 1];
  if (last?.role === 'user' && last.content === input) return { history: messages.slice(0, -1), input };
  return { history: messages, input };
}

function userKey(ctx: TurnContext): string {
  return ctx.userId ?? 'default';
}

async function assembleTurn(config: ActorAssemblerConfig, preset: Preset, prepared: PreparedActorPrompt, ctx: TurnContext): Promise<PreparedActorPrompt> {
  throwIfAborted(ctx.signal);
  // A continue turn: the kernel's prepared history ends with the input and the reply being
  // extended; all of it is chat history and there is no new input (SillyTavern's continue).
  const continuing = ctx.get(contextKeys.continuation) !== undefined;
  const { history: turns, input } = continuing ? { history: prepared.history, input: '' } : splitPreparedHistory(prepared.history, ctx.input);
  const compiledPrompt = ctx.get(contextKeys.dioCompiledPrompt);
  const storyDraft = ctx.get(contextKeys.storyDraft);
  // A per-turn profile (an app's chat character) wins over the boot-time options, field by field.
  const { greeting, ...profile } = ctx.get(actorProfileKey) ?? {};
  const user = profile.user ?? config.user;
  const char = profile.char ?? config.char;
  const fields = profile.fields ?? config.fields;
  const worldInfo = ctx.get(contextKeys.worldInfo);
  const cardPrompts = profile.cardPrompts ?? config.cardPrompts;
  const depthPrompt = profile.depthPrompt ?? config.depthPrompt;
  const regexScripts = (profile.regexScripts ?? config.regexScripts) as RegexScript[] | undefined;
  const globalVariables = config.globalVariables === undefined ? undefined : await config.globalVariables.load(userKey(ctx), ctx.signal);
  throwIfAborted(ctx.signal);
  const templateVariables = ctx.get(contextKeys.templateVariables);
  // Checked once per turn, and only what this turn brought (context values, the turn's actor
  // profile, the stored global variables): the plugin's options and preset were checked at boot.
  checkAssembleInput(turnPartsSchema, { ...profile, variables: templateVariables, globalVariables, compiledPrompt, storyDraft, worldInfo });
  if (greeting !== undefined && typeof greeting !== 'string') throw new AssemblerError('ASSEMBLE_INPUT_INVALID', 'Invalid assemble input: the actor profile\'s greeting must be a string');
  // The greeting is the chat's first message (SillyTavern's chat[0]): history like the turns. A
  // chat longer than the kernel hands out starts before the turns read, greeting and all.
  const chatStartRead = (ctx.get(contextKeys.tokenBudget)?.omittedHistoryMessages ?? 0) === 0;
  const history = greeting === undefined || greeting === '' || !chatStartRead ? turns : [{ role: 'assistant' as const, content: greeting }, ...turns];
  checkHistory(history);
  const turnInput: Omit<AssembleInput, 'history'> = {
    // A profile's preset is checked once per preset object (when first assembled).
    preset: profile.preset ?? preset,
    input,
    variables: { ...config.variables, ...templateVariables },
    // pick is stable per chat; random/roll replay identically for the same turn
    chatId: ctx.sessionId,
    seed: `${ctx.sessionId}:${ctx.turnId}`,
    now: () => ctx.clock.now(),
    ...(globalVariables !== undefined ? { globalVariables } : {}),
    ...(compiledPrompt !== undefined ? { compiledPrompt } : {}),
    ...(storyDraft !== undefined ? { storyDraft } : {}),
    ...(worldInfo !== undefined ? { worldInfo } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(char !== undefined ? { char } : {}),
    ...(fields !== undefined ? { fields } : {}),
    ...(config.overrides !== undefined ? { overrides: config.overrides } : {}),
    ...(config.unknownMacros !== undefined ? { unknownMacros: config.unknownMacros } : {}),
    ...(config.storyDraftInstruction !== undefined ? { storyDraftInstruction: config.storyDraftInstruction } : {}),
    ...(cardPrompts !== undefined ? { cardPrompts } : {}),
    ...(config.useCardPrompts !== undefined ? { useCardPrompts: config.useCardPrompts } : {}),
    ...(depthPrompt !== undefined ? { depthPrompt } : {}),
    ...(regexScripts !== undefined ? { regexScripts } : {}),
    model: config.model ?? actorModelName(ctx),
    ...(config.group !== undefined ? { group: config.group } : {}),
    ...(config.timeZone !== undefined ? { timeZone: config.timeZone } : {}),
    ...(continuing ? { generationType: 'continue' as const } : {}),
  };
  // The budget fit assembles several times with shorter histories: every field is checked above.
  const assembleWith = (history: readonly ChatMessage[]) => assembleChecked({ ...turnInput, history });
  const result = assembleWithDioFallback(history, turnInput, assembleWith, ctx);
  // The kernel joins the saved reply with what the preset put after the reply being continued.
  if (result.continuationJoin) ctx.set(contextKeys.continuationJoin, result.continuationJoin);
  if (config.globalVariables !== undefined && globalVariables !== undefined && !sameRecord(globalVariables, result.globalVariables)) {
    await config.globalVariables.save(userKey(ctx), result.globalVariables, ctx.signal);
  }
  if (result.dioSlot) ctx.events.append(DIO_APPLIED_EVENT, { rule: result.dioSlot.rule, identifier: result.dioSlot.identifier }, { ignorable: true });
  if (result.unknownMacros.length > 0) ctx.events.append(UNKNOWN_MACROS_EVENT, { names: result.unknownMacros }, { ignorable: true });
  if (result.warnings.length > 0) ctx.events.append(ASSEMBLY_WARNINGS_EVENT, { warnings: result.warnings.slice(0, 100) }, { ignorable: true });
  return { history: result.messages };
}

/**
 * What `{{model}}` names when the plugin's config does not: the actor model's name, as
 * SillyTavern shows the model it generates with (`qwen2.5`, not the provider). It is the model the
 * chat's scenario asks for, else the part of the resolved model's `provider:model` id after the
 * provider (the whole id when it has no provider part, e.g. `offline`).
 */
function actorModelName(ctx: TurnContext): string {
  const ref = ctx.scenario.actorModel;
  if (ref?.model !== undefined && ref.model !== '') return ref.model;
  const id = ctx.models.resolve(ref).id;
  const colon = id.indexOf(':');
  return colon > 0 && colon < id.length - 1 ? id.slice(colon + 1) : id;
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

// SillyTavern rewrites a reply with the AI-output regex scripts (those neither prompt- nor
// display-only) before it is stored; here that is the review step, so the stored reply is the rewritten one.
function reviewReply(config: ActorAssemblerConfig, preset: Preset, text: string, ctx: TurnContext): string | undefined {
  const profile = ctx.get(actorProfileKey) ?? {};
  const scripts = [...((profile.preset ?? preset).regexScripts ?? []), ...(((profile.regexScripts ?? config.regexScripts) as RegexScript[] | undefined) ?? [])];
  if (scripts.length === 0 || text === '') return undefined;
  const warnings: string[] = [];
  const env = { variables: new Map<string, string>(), user: config.user ?? 'User', char: config.char ?? 'Character', ...(config.fields !== undefined ? { fields: config.fields } : {}) };
  const [next] = applyRegexScripts([{ text, placement: 'aiOutput', depth: 0 }], scripts, {
    mode: 'stored',
    expand: (value, escapeValue) => expandMacros(value, escapeValue === undefined ? env : { ...env, transformResult: escapeValue }),
    warn: (message) => warnings.push(message),
  });
  if (warnings.length > 0) ctx.events.append(ASSEMBLY_WARNINGS_EVENT, { warnings }, { ignorable: true });
  return next === undefined || next === text ? undefined : next;
}

/**
 * Assembles within the turn's token budget (`contextKeys.tokenBudget`, set by the kernel): the
 * oldest history goes first, and an ignorable {@link CONTEXT_TRIMMED_EVENT} lists what went.
 * Without a budget in the context (an older kernel) the whole history is placed.
 */
function assembleWithinBudget(history: readonly ChatMessage[], assembleWith: (history: readonly ChatMessage[]) => AssembleResult, ctx: TurnContext): AssembleResult {
  const budget = ctx.get(contextKeys.tokenBudget);
  if (!budget) return assembleWith(history);
  const fit = fitHistoryToBudget(history, assembleWith, (result) => result.messages, budget);
  const trimmed = contextTrimmedData(history, fit, budget);
  if (trimmed) ctx.events.append(CONTEXT_TRIMMED_EVENT, trimmed, { ignorable: true });
  return fit.result;
}

/**
 * Assembles within the budget; when the prompt does not fit only because of the DIO compiled
 * prompt, assembles again without it (the preset's own character prompt plays this turn) and
 * queues {@link DIO_DROPPED_EVENT}: the player's turn never fails because of DIO. Slot-rule errors
 * are not affected (they are not about size and still fail the turn).
 */
function assembleWithDioFallback(
  history: readonly ChatMessage[],
  turnInput: Omit<AssembleInput, 'history'>,
  assembleWith: (history: readonly ChatMessage[]) => AssembleResult,
  ctx: TurnContext,
): AssembleResult {
  try {
    return assembleWithinBudget(history, assembleWith, ctx);
  } catch (error) {
    const compiledPrompt = turnInput.compiledPrompt;
    if (compiledPrompt === undefined || !AssemblerError.isInstance(error) || error.code !== 'BUDGET_PROMPT_TOO_LONG') throw error;
    const { compiledPrompt: _dropped, ...withoutDio } = turnInput;
    // Throws BUDGET_PROMPT_TOO_LONG itself when even the normal prompt does not fit.
    const result = assembleWithinBudget(history, (shorter) => assembleChecked({ ...withoutDio, history: shorter }), ctx);
    const { promptTokens, budgetTokens, contextTokens, responseTokens } = (error.details ?? {}) as Record<string, unknown>;
    ctx.events.append(
      DIO_DROPPED_EVENT,
      { reason: 'context-budget', promptTokens, budgetTokens, contextTokens, responseTokens, compiledPromptCharacters: compiledPrompt.length, message: error.message },
      { ignorable: true },
    );
    return result;
  }
}

/**
 * The actor assembler as a kernel plugin: registers a non-degradable `actorAssemble` handler that
 * builds `prepared.history` from the preset, the history, the input, the DIO compiled prompt
 * (`contextKeys.dioCompiledPrompt`), the story draft (`contextKeys.storyDraft`), world info
 * (`contextKeys.worldInfo`, at SillyTavern's positions) and template variables
 * (`contextKeys.templateVariables`); a turn's {@link actorProfileKey} replaces the
 * preset, names and fields for that turn. On a `continue` turn (`contextKeys.continuation`) the
 * reply being extended is the last chat message and the preset's continue rules apply
 * (`continue_nudge_prompt`, or `continue_prefill` with `continue_postfix`). A slot-rule error fails the turn with
 * `KERNEL_HOOK_FAILED` whose `cause` is the {@link AssemblerError}; it is never degraded.
 * @param options - preset, names, fields, variables, overrides, macro and story-draft options
 * @returns the plugin definition
 * @throws {KernelError} KERNEL_PLUGIN_CONFIG_INVALID at boot when the options (e.g. the preset) are invalid
 */
export function actorAssemblerPlugin(options: ActorAssemblerOptions = {}): PluginDefinition<ActorAssemblerConfig> {
  return definePlugin<ActorAssemblerConfig>({
    name: ACTOR_ASSEMBLER_PLUGIN_NAME,
    version: '0.1.0',
    kernel: '>=0.1.0 <1.0.0',
    configSchema: ActorAssemblerOptionsSchema,
    config: options,
    setup(ctx) {
      const config = ctx.config;
      // The config schema checked the preset at boot; it is never checked again on a turn.
      const preset = bootPreset(config.preset);
      // Not degradable: a preset that cannot take the DIO prompt must fail the turn, never
      // silently answer without the player's standing requirement.
      ctx.hooks.actorAssemble({ degradable: false, handler: (prepared, turn) => assembleTurn(config, preset, prepared, turn) });
      ctx.hooks.review((reply, turn) => {
        const text = reviewReply(config, preset, reply.text, turn);
        return text === undefined ? undefined : { ...reply, text };
      });
    },
  });
}
