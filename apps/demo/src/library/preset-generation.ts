import type { ActorSampling, TokenBudgetSettings, TurnInput } from '@troupe/kernel';

// The SillyTavern keys of a chat-completion preset that shape the model call rather than the
// prompt, with the ranges SillyTavern's own sliders allow.
const SAMPLING_KEYS: readonly { key: string; field: keyof ActorSampling; min: number; max: number }[] = [
  { key: 'temperature', field: 'temperature', min: 0, max: 2 },
  { key: 'top_p', field: 'topP', min: 0, max: 1 },
  { key: 'frequency_penalty', field: 'frequencyPenalty', min: -2, max: 2 },
  { key: 'presence_penalty', field: 'presencePenalty', min: -2, max: 2 },
];

/**
 * The actor's sampling settings a SillyTavern preset carries (`temperature`, `top_p`,
 * `frequency_penalty`, `presence_penalty`); a value out of range or of the wrong type is left
 * out, so the server's default applies.
 * @param settings - the preset's own top-level keys, as imported
 * @returns the sampling settings, or undefined when the preset has none
 */
export function presetSampling(settings: Readonly<Record<string, unknown>>): ActorSampling | undefined {
  const sampling: Partial<Record<keyof ActorSampling, number>> = {};
  for (const { key, field, min, max } of SAMPLING_KEYS) {
    const value = settings[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) sampling[field] = value;
  }
  return Object.keys(sampling).length > 0 ? sampling : undefined;
}

/**
 * The token budget a SillyTavern preset carries: its context size (`openai_max_context`) and
 * response length (`openai_max_tokens`), as SillyTavern's chat-completion presets hold them.
 * Only what nothing more specific sets: a size saved in the Model view (`saved`) or reported by
 * the model server (`serverContext`) wins, since it says what the server really runs.
 * @param settings - the preset's own top-level keys
 * @param saved - the budget of the model settings
 * @param serverContext - the context the model reports (`capabilities.contextTokens`)
 * @returns the budget fields to add (empty when the preset has none, or they are set elsewhere)
 */
export function presetBudget(settings: Readonly<Record<string, unknown>>, saved: TokenBudgetSettings | undefined, serverContext: number | undefined): TokenBudgetSettings {
  const context = wholeNumber(settings['openai_max_context'], 256, 100_000_000);
  const response = wholeNumber(settings['openai_max_tokens'], 1, 10_000_000);
  return {
    ...(context !== undefined && saved?.contextTokens === undefined && serverContext === undefined ? { contextTokens: context } : {}),
    ...(response !== undefined && saved?.responseTokens === undefined ? { responseTokens: response } : {}),
  };
}

/** The preset keys a library chat applies to the model call (see {@link presetSampling} and {@link presetBudget}). */
export const MODEL_CALL_KEYS: readonly string[] = [...SAMPLING_KEYS.map(({ key }) => key), 'openai_max_context', 'openai_max_tokens'];

const NOT_APPLIED_PREFIX = 'Not applied by the assembler';

/**
 * The import warnings of a preset as a library chat plays it: the assembler names every setting
 * it does not apply, but the chat applies the model-call ones itself, so those move from that
 * warning to a line of their own.
 * @param warnings - the importer's warnings
 * @param settings - the preset's own top-level keys
 * @returns the warnings to show
 */
export function chatPresetWarnings(warnings: readonly string[], settings: Readonly<Record<string, unknown>>): string[] {
  const applied = MODEL_CALL_KEYS.filter((key) => settings[key] !== undefined);
  if (applied.length === 0) return [...warnings];
  const shown: string[] = [];
  for (const warning of warnings) {
    if (!warning.startsWith(NOT_APPLIED_PREFIX)) {
      shown.push(warning);
      continue;
    }
    const at = warning.lastIndexOf(': ');
    const rest = warning
      .slice(at + 2)
      .split(', ')
      .filter((key) => !applied.includes(key));
    if (rest.length > 0) shown.push(`${warning.slice(0, at + 2)}${rest.join(', ')}`);
  }
  shown.push(`Applied to the reply's model call (unless the Model view or the server sets them): ${applied.join(', ')}`);
  return shown;
}

function wholeNumber(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
}

/**
 * A library chat's turn input with what its SillyTavern preset says about the model call: the
 * actor's sampling (temperature, top_p, penalties) and, where the model settings and the server
 * say nothing, the preset's context size and response length. The turn's own values win.
 * @param extra - the turn input's own fields
 * @param settings - the chat preset's own top-level keys
 * @param saved - the budget of the model settings
 * @param serverContext - the context the actor model reports
 * @returns the turn input's fields with the preset's
 */
export function withPresetGeneration(extra: Partial<TurnInput>, settings: Readonly<Record<string, unknown>>, saved: TokenBudgetSettings | undefined, serverContext: number | undefined): Partial<TurnInput> {
  const sampling = presetSampling(settings);
  const budget = presetBudget(settings, saved, serverContext);
  if (sampling === undefined && Object.keys(budget).length === 0) return extra;
  const scenario = extra.scenario ?? {};
  return {
    ...extra,
    scenario: {
      ...scenario,
      ...(sampling !== undefined ? { actorSampling: { ...sampling, ...scenario.actorSampling } } : {}),
      ...(Object.keys(budget).length > 0 ? { tokenBudget: { ...budget, ...scenario.tokenBudget } } : {}),
    },
  };
}
