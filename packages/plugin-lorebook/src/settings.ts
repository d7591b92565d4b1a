import * as z from 'zod';

/**
 * Global world-info settings, with SillyTavern's defaults for a new user (`default/settings.json`):
 * scan depth 2, budget 25 % of the context, recursive scanning on, whole-word matching on, case
 * insensitive, character lore first.
 */
export const WorldInfoSettingsSchema = z
  .object({
    /** How many of the newest messages are scanned; the current input is the newest (ST: the user's message is in the chat). */
    scanDepth: z.number().int().min(0).max(1000).default(2),
    /** The model's context size in tokens, for the percent budget. */
    contextSize: z.number().int().positive().default(8192),
    /** Budget as a percent of `contextSize` (ST `world_info_budget`). */
    budgetPercent: z.number().min(0).max(100).default(25),
    /** Absolute budget in tokens; when set it replaces the percent budget. */
    budgetTokens: z.number().int().positive().optional(),
    /** Upper bound on the budget (ST `world_info_budget_cap`; 0 = none). */
    budgetCap: z.number().int().min(0).default(0),
    /** Scan activated entries' content for more keys. */
    recursive: z.boolean().default(true),
    /** Most scan passes (0 = until nothing new activates). */
    maxRecursionSteps: z.number().int().min(0).max(100).default(0),
    caseSensitive: z.boolean().default(false),
    matchWholeWords: z.boolean().default(true),
    useGroupScoring: z.boolean().default(false),
    /** Prefix scanned messages with the speaker's name (`Name: text`). */
    includeNames: z.boolean().default(true),
    /** Order of character vs global books in the scan (chat books always come first). */
    insertionStrategy: z.enum(['characterFirst', 'globalFirst', 'evenly']).default('characterFirst'),
  })
  .strict();

/** Settings as passed in (every field optional). */
export type WorldInfoSettingsInput = z.input<typeof WorldInfoSettingsSchema>;
/** Settings with defaults applied. */
export type WorldInfoSettings = z.output<typeof WorldInfoSettingsSchema>;

/**
 * The token budget for one activation: an absolute budget if set, else `budgetPercent` of
 * `contextSize` (at least 1, as ST), never above `budgetCap` when that is set.
 * @param settings - settings with defaults applied
 * @returns the budget in tokens
 */
export function worldInfoBudget(settings: WorldInfoSettings): number {
  const budget = settings.budgetTokens ?? (Math.round((settings.budgetPercent * settings.contextSize) / 100) || 1);
  return settings.budgetCap > 0 && budget > settings.budgetCap ? settings.budgetCap : budget;
}
