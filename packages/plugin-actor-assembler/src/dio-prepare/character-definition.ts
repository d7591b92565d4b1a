import { expandMacros, type MacroFields } from '../macros.js';

/** SillyTavern's default `personality_format`. */
export const DEFAULT_PERSONALITY_FORMAT = "[{{char}}'s personality: {{personality}}]";
/** SillyTavern's default `scenario_format`. */
export const DEFAULT_SCENARIO_FORMAT = '[Circumstances and context of the dialogue: {{scenario}}]';

/** Options of {@link renderCharacterDefinition}. */
export interface CharacterDefinitionOptions {
  /** What `{{char}}` becomes (the card's display name). */
  readonly char: string;
  /** What `{{user}}` becomes (default `User`). */
  readonly user?: string;
  /** How the personality is framed (default {@link DEFAULT_PERSONALITY_FORMAT}; a preset's `personality_format`). */
  readonly personalityFormat?: string;
  /** How the scenario is framed (default {@link DEFAULT_SCENARIO_FORMAT}; a preset's `scenario_format`). */
  readonly scenarioFormat?: string;
}

/**
 * A character's full definition as one text: description, personality and scenario (each left out
 * when empty), with `{{char}}`/`{{user}}` substituted — what SillyTavern's three definition markers
 * render. This is the base prompt to register with a DIO service for the character, so a compiled
 * prompt built from it is a complete replacement for the definition (never just the new rule).
 * @param fields - the card's description, personality and scenario
 * @param options - names and the personality/scenario frames
 * @returns the definition (empty when every field is empty)
 */
export function renderCharacterDefinition(fields: Pick<MacroFields, 'description' | 'personality' | 'scenario'>, options: CharacterDefinitionOptions): string {
  const env = { variables: new Map<string, string>(), char: options.char, user: options.user ?? 'User', fields };
  const parts: string[] = [];
  if (fields.description?.trim()) parts.push(expandMacros('{{description}}', env).trim());
  if (fields.personality?.trim()) parts.push(expandMacros(options.personalityFormat ?? DEFAULT_PERSONALITY_FORMAT, env).trim());
  if (fields.scenario?.trim()) parts.push(expandMacros(options.scenarioFormat ?? DEFAULT_SCENARIO_FORMAT, env).trim());
  return parts.join('\n\n');
}
