import { type ActivatedWorldInfoEntry, type PluginDefinition, type TurnContext, type TurnTokenBudget, contextKeys, definePlugin, throwIfAborted } from '@troupe/kernel';
import * as z from 'zod';
import { type WorldInfoActivation, activateWorldInfo } from './activate.js';
import type { Lorebook } from './entry.js';
import { type ActivatedEventData, LOREBOOK_ACTIVATED_EVENT, LOREBOOK_STATE_EVENT, LOREBOOK_STATE_KEY } from './events.js';
import { WorldInfoSettingsSchema, type WorldInfoSettingsInput } from './settings.js';
import { EMPTY_STATE, type WorldInfoState, WorldInfoStateSchema } from './timed-effects.js';

/** The plugin's name (also its npm package name). */
export const LOREBOOK_PLUGIN_NAME = '@troupe/plugin-lorebook';

/** Speaker names for `{{user}}`/`{{char}}` in keys and for `includeNames`. */
export interface LoreNames {
  readonly user?: string;
  readonly char?: string;
}

/** The books of one turn, with the names of that chat when they differ per chat. */
export interface TurnBooks {
  readonly books: readonly Lorebook[];
  readonly names?: LoreNames;
}

/**
 * Picks the books of one turn (e.g. the chat's character book plus its attached global books),
 * optionally with that chat's names.
 */
export type BookSource = (turn: TurnContext) => readonly Lorebook[] | TurnBooks | Promise<readonly Lorebook[] | TurnBooks>;

/** Options of {@link lorebookPlugin}. */
export interface LorebookPluginOptions {
  /** Books for every turn, or a function that picks them per turn. */
  readonly books: readonly Lorebook[] | BookSource;
  readonly settings?: WorldInfoSettingsInput;
  /** Names for `{{user}}`/`{{char}}` in keys and for `includeNames` (a {@link TurnBooks} `names` wins). */
  readonly names?: LoreNames;
}

const OptionsSchema = z
  .object({
    books: z.union([z.array(z.looseObject({ name: z.string(), entries: z.array(z.unknown()) })), z.custom<BookSource>((value) => typeof value === 'function', 'expected a function')]),
    settings: WorldInfoSettingsSchema.optional(),
    names: z.object({ user: z.string().optional(), char: z.string().optional() }).strict().optional(),
  })
  .strict();
type Config = z.output<typeof OptionsSchema>;

async function previousState(turn: TurnContext): Promise<WorldInfoState> {
  const event = await turn.events.findLatest({ type: LOREBOOK_STATE_EVENT, key: LOREBOOK_STATE_KEY });
  const parsed = WorldInfoStateSchema.safeParse(event?.data);
  return parsed.success ? parsed.data : EMPTY_STATE;
}

function eventData(activation: WorldInfoActivation): ActivatedEventData {
  return {
    entries: activation.entries.map((entry) => ({
      id: entry.id,
      book: entry.book,
      uid: entry.uid,
      comment: entry.comment,
      position: entry.position,
      reason: entry.reason,
      ...(entry.key !== undefined ? { key: entry.key } : {}),
      ...(entry.secondaryKey !== undefined ? { secondaryKey: entry.secondaryKey } : {}),
      recursion: entry.recursion,
      tokens: entry.tokens,
    })),
    rejected: activation.rejected,
    budget: activation.budget,
  };
}

function placeable(activation: WorldInfoActivation): ActivatedWorldInfoEntry[] {
  // The kernel key carries only what placement needs; the why goes to the event.
  return activation.entries
    .filter((entry) => entry.content !== '')
    .map(({ id, book, uid, comment, content, position, order, depth, role }) => ({ id, book, uid, comment, content, position, order, depth, role }));
}

// World info has its own budget inside the chat's context budget: the kernel's
// `contextKeys.tokenBudget` gives the chat's context size (unless the plugin was given one) and the
// actor model's calibrated token counter, so entries are counted as the prompt will be.
function worldInfoBudgetFrom(config: Config, budget: TurnTokenBudget | undefined, explicitContextSize: boolean) {
  if (!budget) return config.settings !== undefined ? { settings: config.settings } : {};
  const settings = explicitContextSize ? config.settings : { ...config.settings, contextSize: budget.contextTokens };
  return { ...(settings !== undefined ? { settings } : {}), countTokens: budget.countText };
}

async function activateForTurn(config: Config, turn: TurnContext, explicitContextSize: boolean): Promise<void> {
  const picked = typeof config.books === 'function' ? await config.books(turn) : (config.books as readonly Lorebook[]);
  throwIfAborted(turn.signal);
  const books = Array.isArray(picked) ? (picked as readonly Lorebook[]) : (picked as TurnBooks).books;
  const names = Array.isArray(picked) ? config.names : ((picked as TurnBooks).names ?? config.names);
  if (books.length === 0) return;
  const state = await previousState(turn);
  throwIfAborted(turn.signal);
  const activation = activateWorldInfo({
    books,
    messages: turn.history,
    input: turn.input,
    state,
    // Reproducible per chat position: replaying a chat rolls the same dice.
    seed: `${turn.sessionId}:${turn.history.length}`,
    ...worldInfoBudgetFrom(config, turn.get(contextKeys.tokenBudget), explicitContextSize),
    ...(names !== undefined ? { names } : {}),
  });
  turn.set(contextKeys.worldInfo, { entries: placeable(activation) });
  turn.events.append(LOREBOOK_ACTIVATED_EVENT, eventData(activation), { ignorable: true });
  if (JSON.stringify(activation.state) !== JSON.stringify(state)) {
    turn.events.append(LOREBOOK_STATE_EVENT, activation.state, { ignorable: true, key: LOREBOOK_STATE_KEY });
  }
}

/**
 * World info as a kernel plugin: before the actor (a `pre` `preActor` handler, so the story
 * pipeline sees it too), activates the turn's books over the history and the input, sets
 * `contextKeys.worldInfo` for the actor assembler, and records what fired
 * (`lorebook/activated`, ignorable) and the chat's timed effects (`lorebook/state`, read back
 * next turn). Not degradable: for cards that keep the character in their book, answering
 * without it would be a different character.
 * @param options - books (or a per-turn source), settings and names
 * @returns the plugin definition
 * @throws {KernelError} KERNEL_PLUGIN_CONFIG_INVALID at boot when the options are invalid
 */
export function lorebookPlugin(options: LorebookPluginOptions): PluginDefinition<Config> {
  return definePlugin<Config>({
    name: LOREBOOK_PLUGIN_NAME,
    version: '0.1.0',
    kernel: '>=0.1.0 <1.0.0',
    configSchema: OptionsSchema,
    config: options,
    setup(ctx) {
      const config = ctx.config;
      const explicitContextSize = options.settings?.contextSize !== undefined;
      ctx.hooks.preActor({ order: 'pre', degradable: false, handler: (_input, turn) => activateForTurn(config, turn, explicitContextSize) });
    },
  });
}
