import { type ActivatedWorldInfoEntry, type PluginDefinition, type TurnContext, contextKeys, definePlugin } from '@troupe/kernel';
import { throwIfAborted } from '@troupe/kernel/util';
import * as z from 'zod';
import { type WorldInfoActivation, activateChecked } from './activate.js';
import { bookIssues, checkTurnBooks } from './activation-input.js';
import type { Lorebook } from './entry.js';
import { turnTrigger } from './generation-trigger.js';
import type { WorldInfoScanData } from './scan-sources.js';
import { type ActivatedEventData, LOREBOOK_ACTIVATED_EVENT, LOREBOOK_STATE_EVENT, LOREBOOK_STATE_KEY } from './events.js';
import { type WorldInfoSettings, WorldInfoSettingsSchema, type WorldInfoSettingsInput } from './settings.js';
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
  /**
   * The chat's first message (a card's greeting), as SillyTavern's `chat[0]`: scanned as the
   * chat's oldest message, so a greeting that names a key sets the scene from the first reply on.
   */
  readonly greeting?: string;
  /**
   * The chat's card and persona fields (ST's `WIGlobalScanData`: persona description, character
   * description, personality, depth prompt, scenario, creator notes), for entries whose keys are
   * also matched against them (`matchSources`, ST's `match…` flags).
   */
  readonly scanData?: WorldInfoScanData;
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
  /**
   * Activation settings. Without `budgetTokens`, `budgetPercent` or `contextSize` here, the budget
   * is the turn's `contextKeys.tokenBudget.worldInfoTokens` (the kernel's share for world info) when
   * the kernel provides one; tokens are counted with its calibrated counter either way.
   */
  readonly settings?: WorldInfoSettingsInput;
  /** Names for `{{user}}`/`{{char}}` in keys and for `includeNames` (a {@link TurnBooks} `names` wins). */
  readonly names?: LoreNames;
}

const OptionsSchema = z
  .object({
    books: z.union([
      // The books given here are checked whole, at boot (shapes, entries, unique names), never per turn.
      z.array(z.looseObject({ name: z.string(), entries: z.array(z.unknown()) })).superRefine((books, ctx) => {
        for (const issue of bookIssues(books)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        const seen = new Set<string>();
        books.forEach((book, index) => {
          if (seen.has(book.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `Two books are named "${book.name}"; entry ids (<book>.<uid>) would clash` });
          seen.add(book.name);
        });
      }),
      z.custom<BookSource>((value) => typeof value === 'function', 'expected a function'),
    ]),
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
    .map(({ id, book, uid, comment, content, position, order, depth, role, outletName }) => ({ id, book, uid, comment, content, position, order, depth, role, ...(outletName !== undefined ? { outletName } : {}) }));
}

// The turn's token budget (the kernel's, from the chat's settings) unless the plugin was given a
// budget of its own: world info then takes the kernel's world-info share, counted with the
// actor model's calibrated counter.
function budgetFor(settings: WorldInfoSettings, ownBudget: boolean, turn: TurnContext): { settings: WorldInfoSettings; countTokens?: (text: string) => number } {
  const kernel = turn.get(contextKeys.tokenBudget);
  if (!kernel) return { settings };
  const countTokens = (text: string) => kernel.countText(text);
  if (ownBudget) return { settings, countTokens };
  // The kernel's budget is whole tokens; the rest of the settings were checked at boot.
  return { settings: { ...settings, contextSize: Math.max(1, Math.floor(kernel.contextTokens)), budgetTokens: Math.max(1, Math.floor(kernel.worldInfoTokens)) }, countTokens };
}

async function activateForTurn(config: Config, settings: WorldInfoSettings, ownBudget: boolean, turn: TurnContext): Promise<void> {
  const fromSource = typeof config.books === 'function';
  const picked = fromSource ? await (config.books as BookSource)(turn) : (config.books as readonly Lorebook[]);
  throwIfAborted(turn.signal);
  const books = Array.isArray(picked) ? (picked as readonly Lorebook[]) : (picked as TurnBooks).books;
  const turnNames = Array.isArray(picked) ? undefined : (picked as TurnBooks).names;
  const greeting = Array.isArray(picked) ? undefined : (picked as TurnBooks).greeting;
  const scanData = Array.isArray(picked) ? undefined : (picked as TurnBooks).scanData;
  // Books from the app's source are this turn's input; the plugin's own were checked at boot.
  if (fromSource) checkTurnBooks(books, turnNames, greeting, scanData);
  const names = turnNames ?? config.names;
  if (books.length === 0) return;
  // Checked as it is read from the log; the history is the kernel's.
  const state = await previousState(turn);
  throwIfAborted(turn.signal);
  const { settings: turnSettings, countTokens } = budgetFor(settings, ownBudget, turn);
  const activation = activateChecked(
    {
      books,
      // The greeting is the chat's oldest message, unless the kernel's history read starts after it.
      messages: greeting === undefined || greeting === '' || !readsChatStart(turn) ? turn.history : [{ role: 'assistant', content: greeting }, ...turn.history],
      input: turn.input,
      // Reproducible per chat position: replaying a chat rolls the same dice.
      seed: `${turn.sessionId}:${turn.history.length}`,
      ...(countTokens !== undefined ? { countTokens } : {}),
      ...(names !== undefined ? { names } : {}),
      trigger: turnTrigger(turn),
      ...(scanData !== undefined ? { scanData } : {}),
    },
    { settings: turnSettings, state },
  );
  turn.set(contextKeys.worldInfo, { entries: placeable(activation) });
  turn.events.append(LOREBOOK_ACTIVATED_EVENT, eventData(activation), { ignorable: true });
  if (JSON.stringify(activation.state) !== JSON.stringify(state)) {
    turn.events.append(LOREBOOK_STATE_EVENT, activation.state, { ignorable: true, key: LOREBOOK_STATE_KEY });
  }
}

// Whether the turn's history reaches back to the chat's start (the kernel hands out a bounded
// number of turns, and says how many messages it left out in the turn's token budget).
function readsChatStart(turn: TurnContext): boolean {
  return (turn.get(contextKeys.tokenBudget)?.omittedHistoryMessages ?? 0) === 0;
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
      // Defaults filled in once: the settings were checked by the options schema at boot.
      const settings = WorldInfoSettingsSchema.parse(config.settings ?? {});
      const own = options.settings;
      const ownBudget = own !== undefined && (own.budgetTokens !== undefined || own.budgetPercent !== undefined || own.contextSize !== undefined);
      ctx.hooks.preActor({ order: 'pre', degradable: false, handler: (_input, turn) => activateForTurn(config, settings, ownBudget, turn) });
    },
  });
}
