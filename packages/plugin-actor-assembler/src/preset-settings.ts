import * as z from 'zod';

/**
 * How speaker names reach the model (SillyTavern's `names_behavior`):
 * `none` (-1) — not at all; `default` (0) — only where needed (other speakers in a group chat);
 * `completion` (1) — as the message's `name` field; `content` (2) — as a `Name: ` prefix.
 */
export type NamesBehavior = 'none' | 'default' | 'completion' | 'content';

/** The SillyTavern preset settings the assembler applies. Every field is optional. */
export interface PresetSettings {
  /** Merge consecutive system messages (unnamed ones) into one, joined by a newline. */
  readonly squashSystemMessages?: boolean;
  /** An assistant message appended after everything (it prefills the reply). */
  readonly assistantPrefill?: string;
  /** The prefill used instead when impersonating the user. */
  readonly assistantImpersonation?: string;
  readonly namesBehavior?: NamesBehavior;
  /** Wraps `{{personality}}` where the personality marker is (`{{personality}}` inside). */
  readonly personalityFormat?: string;
  /** Wraps `{{scenario}}` where the scenario marker is. */
  readonly scenarioFormat?: string;
  /** Wraps world info (`{0}` is the entries' text). */
  readonly wiFormat?: string;
  /** Sent after the history when continuing the last reply (`{{lastChatMessage}}` inside). */
  readonly continueNudgePrompt?: string;
  /** Continue by prefilling the last reply instead of nudging. */
  readonly continuePrefill?: boolean;
  /** Appended to the continued text when prefilling (`continue_postfix`). */
  readonly continuePostfix?: string;
  /** A system message before the chat history (`[Start a new Chat]`). */
  readonly newChatPrompt?: string;
  /** A system message before each example dialogue (`[Example Chat]`). */
  readonly newExampleChatPrompt?: string;
  /** The instruction for impersonating the user. */
  readonly impersonationPrompt?: string;
  /** Sent as the user message when the input is empty. */
  readonly sendIfEmpty?: string;
}

/** Schema of {@link PresetSettings}. */
export const PresetSettingsSchema = z
  .object({
    squashSystemMessages: z.boolean(),
    assistantPrefill: z.string().max(100_000),
    assistantImpersonation: z.string().max(100_000),
    namesBehavior: z.enum(['none', 'default', 'completion', 'content']),
    personalityFormat: z.string().max(100_000),
    scenarioFormat: z.string().max(100_000),
    wiFormat: z.string().max(100_000),
    continueNudgePrompt: z.string().max(100_000),
    continuePrefill: z.boolean(),
    continuePostfix: z.string().max(1000),
    newChatPrompt: z.string().max(100_000),
    newExampleChatPrompt: z.string().max(100_000),
    impersonationPrompt: z.string().max(100_000),
    sendIfEmpty: z.string().max(100_000),
  })
  .partial()
  .strict();

// openai.js `character_names_behavior`: NONE is -1 and DEFAULT is 0 (the value every shipped preset has).
const NAMES: Readonly<Record<string, NamesBehavior>> = { '-1': 'none', '0': 'default', '1': 'completion', '2': 'content' };

// SillyTavern's preset keys → ours. Listed here so the importer can say which keys it applies.
const STRING_KEYS = {
  assistant_prefill: 'assistantPrefill',
  assistant_impersonation: 'assistantImpersonation',
  personality_format: 'personalityFormat',
  scenario_format: 'scenarioFormat',
  wi_format: 'wiFormat',
  continue_nudge_prompt: 'continueNudgePrompt',
  continue_postfix: 'continuePostfix',
  new_chat_prompt: 'newChatPrompt',
  new_example_chat_prompt: 'newExampleChatPrompt',
  impersonation_prompt: 'impersonationPrompt',
  send_if_empty: 'sendIfEmpty',
} as const;

/** SillyTavern preset keys that {@link presetSettingsFromSillyTavern} maps. */
export const APPLIED_SILLYTAVERN_SETTINGS: readonly string[] = [...Object.keys(STRING_KEYS), 'squash_system_messages', 'continue_prefill', 'names_behavior'];

/**
 * Reads the settings the assembler applies from a SillyTavern preset's top-level keys; values of
 * the wrong type are skipped (and named in `skipped`).
 * @param raw - the preset's keys other than prompts
 * @returns the settings and the keys that had unusable values
 */
export function presetSettingsFromSillyTavern(raw: Readonly<Record<string, unknown>>): { settings: PresetSettings; skipped: string[]; withheld: string[] } {
  const settings: Record<string, unknown> = {};
  const skipped: string[] = [];
  const withheld = withheldForSource(raw);
  for (const [key, target] of Object.entries(STRING_KEYS)) {
    const value = raw[key];
    if (value === undefined || withheld.includes(key)) continue;
    if (typeof value === 'string' && value.length <= (key === 'continue_postfix' ? 1000 : 100_000)) settings[target] = value;
    else skipped.push(key);
  }
  for (const [key, target] of [
    ['squash_system_messages', 'squashSystemMessages'],
    ['continue_prefill', 'continuePrefill'],
  ] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value === 'boolean') settings[target] = value;
    else skipped.push(key);
  }
  const names = raw['names_behavior'];
  if (names !== undefined) {
    const mapped = NAMES[String(names)];
    if (mapped !== undefined) settings['namesBehavior'] = mapped;
    else skipped.push('names_behavior');
  }
  // A preset saved before SillyTavern had the setting loads with its default, a space.
  if (raw['continue_postfix'] === undefined) settings['continuePostfix'] = ' ';
  return { settings: settings as PresetSettings, skipped, withheld };
}

// SillyTavern sends the assistant prefill (and the impersonation prefill) to Claude only
// (openai.js: `if (isClaude) { … generate_data['assistant_prefill'] = … }`); for any other source
// the fields are left over from an earlier Claude setup and hidden in its UI. A preset that names
// no source keeps them: its author may well mean them.
const CLAUDE_ONLY_KEYS = ['assistant_prefill', 'assistant_impersonation'] as const;

function withheldForSource(raw: Readonly<Record<string, unknown>>): string[] {
  const source = raw['chat_completion_source'];
  if (typeof source !== 'string' || source === 'claude') return [];
  return CLAUDE_ONLY_KEYS.filter((key) => typeof raw[key] === 'string' && (raw[key] as string).trim() !== '');
}
