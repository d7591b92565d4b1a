import { type ChatMessage, type PluginDefinition, type PreparedActorPrompt, type TurnContext, contextKeys, definePlugin, throwIfAborted } from '@troupe/kernel';
import * as z from 'zod';
import { actorProfileKey } from './actor-profile.js';
import { type AssembleResult, assemble } from './assemble.js';
import { contextTrimmedData, fitHistoryToBudget } from './budget/index.js';
import { CONTEXT_TRIMMED_EVENT } from './budget/trim-event.js';
import type { MacroFields } from './macros.js';
import { type Preset, PresetSchema, defaultPreset } from './preset.js';

/** The plugin's name (also its npm package name). */
export const ACTOR_ASSEMBLER_PLUGIN_NAME = '@troupe/plugin-actor-assembler';
/** Event queued when a DIO compiled prompt was placed (`{rule, identifier}`). */
export const DIO_APPLIED_EVENT = 'actor-assembler/dio-applied';

/** Schema of the plugin's options (validated at boot, so a bad preset fails the harness, not a turn). */
export const ActorAssemblerOptionsSchema = z
  .object({
    preset: PresetSchema.optional(),
    user: z.string().max(1024).optional(),
    char: z.string().max(1024).optional(),
    fields: z
      .object({ description: z.string(), personality: z.string(), scenario: z.string(), persona: z.string(), mesExamples: z.string() })
      .partial()
      .strict()
      .optional(),
    variables: z.record(z.string(), z.string()).optional(),
    overrides: z.record(z.string(), z.string()).optional(),
    unknownMacros: z.enum(['keep', 'error']).optional(),
    storyDraftInstruction: z.string().min(1).optional(),
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

function assembleTurn(config: ActorAssemblerConfig, prepared: PreparedActorPrompt, ctx: TurnContext): PreparedActorPrompt {
  throwIfAborted(ctx.signal);
  const { history, input } = splitPreparedHistory(prepared.history, ctx.input);
  const compiledPrompt = ctx.get(contextKeys.dioCompiledPrompt);
  const storyDraft = ctx.get(contextKeys.storyDraft);
  // A per-turn profile (an app's chat character) wins over the boot-time options, field by field.
  const profile = ctx.get(actorProfileKey) ?? {};
  const user = profile.user ?? config.user;
  const char = profile.char ?? config.char;
  const fields = profile.fields ?? config.fields;
  const worldInfo = ctx.get(contextKeys.worldInfo);
  const assembleWith = (history: readonly ChatMessage[]) => assemble({
    preset: profile.preset ?? config.preset ?? defaultPreset(),
    history,
    input,
    variables: { ...config.variables, ...ctx.get(contextKeys.templateVariables) },
    ...(compiledPrompt !== undefined ? { compiledPrompt } : {}),
    ...(storyDraft !== undefined ? { storyDraft } : {}),
    ...(worldInfo !== undefined ? { worldInfo } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(char !== undefined ? { char } : {}),
    ...(fields !== undefined ? { fields } : {}),
    ...(config.overrides !== undefined ? { overrides: config.overrides } : {}),
    ...(config.unknownMacros !== undefined ? { unknownMacros: config.unknownMacros } : {}),
    ...(config.storyDraftInstruction !== undefined ? { storyDraftInstruction: config.storyDraftInstruction } : {}),
  });
  const result = assembleWithinBudget(history, assembleWith, ctx);
  if (result.dioSlot) ctx.events.append(DIO_APPLIED_EVENT, { rule: result.dioSlot.rule, identifier: result.dioSlot.identifier }, { ignorable: true });
  return { history: result.messages };
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
 * The actor assembler as a kernel plugin: registers a non-degradable `actorAssemble` handler that
 * builds `prepared.history` from the preset, the history, the input, the DIO compiled prompt
 * (`contextKeys.dioCompiledPrompt`), the story draft (`contextKeys.storyDraft`), world info
 * (`contextKeys.worldInfo`, at SillyTavern's positions) and template variables
 * (`contextKeys.templateVariables`); a turn's {@link actorProfileKey} replaces the
 * preset, names and fields for that turn. A slot-rule error fails the turn with
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
      // Not degradable: a preset that cannot take the DIO prompt must fail the turn, never
      // silently answer without the player's standing requirement.
      ctx.hooks.actorAssemble({ degradable: false, handler: (prepared, turn) => assembleTurn(config, prepared, turn) });
    },
  });
}
