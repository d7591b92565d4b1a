import { APPLIED_SILLYTAVERN_SETTINGS, type PresetSettings, presetSettingsFromSillyTavern } from '../preset-settings.js';
import { REGEX_PLACEMENTS, type RegexScript, readRegexScripts } from '../regex/regex-script.js';

// Keys that describe the file rather than change a prompt.
const DESCRIPTIVE_KEYS: ReadonlySet<string> = new Set(['name', 'extensions']);

/** What a SillyTavern preset contributes beyond its prompts. */
export interface SillyTavernPresetExtras {
  readonly settings: PresetSettings;
  readonly regexScripts: RegexScript[];
  readonly warnings: string[];
}

function regexWarnings(scripts: readonly RegexScript[], source: string): string[] {
  const warnings: string[] = [];
  for (const script of scripts) {
    if (script.disabled === true) continue;
    const label = `${source} regex script "${script.scriptName ?? script.id ?? '?'}"`;
    if (script.markdownOnly === true && script.promptOnly !== true) {
      warnings.push(`${label} only changes how messages are displayed; not applied to the prompt`);
      continue;
    }
    const placements = (script.placement ?? []).map((number) => REGEX_PLACEMENTS[number]);
    const applied = placements.filter((name) => name === 'userInput' || name === 'aiOutput' || name === 'worldInfo');
    if (applied.length === 0) warnings.push(`${label} targets only slash commands, reasoning or the old display placement, which the assembler has none of; not applied`);
    if (script.runOnEdit === false) warnings.push(`${label} is marked not to run on edits; the assembler has no edits, so this flag has no effect`);
  }
  return warnings;
}

/**
 * Reads the settings and regex scripts of a SillyTavern preset and says, in warnings, what the
 * assembler does not apply: sampling and connection settings (kept in `settings` for the app),
 * unknown extensions, display-only regex scripts.
 * @param raw - the preset's keys other than `prompts` / `prompt_order`
 * @returns settings, regex scripts and warnings
 */
export function sillyTavernPresetExtras(raw: Readonly<Record<string, unknown>>): SillyTavernPresetExtras {
  const { settings, skipped, withheld } = presetSettingsFromSillyTavern(raw);
  const warnings: string[] = skipped.map((key) => `Setting "${key}" has a value of the wrong type; not applied`);
  for (const key of withheld) warnings.push(`Setting "${key}" is not sent: SillyTavern sends it to Claude only, and this preset is for "${String(raw['chat_completion_source'])}"`);
  const extensions = typeof raw['extensions'] === 'object' && raw['extensions'] !== null ? (raw['extensions'] as Record<string, unknown>) : {};
  const regex = readRegexScripts(extensions['regex_scripts'], 'Preset');
  warnings.push(...regex.warnings, ...regexWarnings(regex.scripts, 'Preset'));
  const otherExtensions = Object.keys(extensions).filter((key) => key !== 'regex_scripts');
  if (otherExtensions.length > 0) warnings.push(`Preset extensions not applied: ${otherExtensions.join(', ')}`);
  const applied = new Set(APPLIED_SILLYTAVERN_SETTINGS);
  const notApplied = Object.keys(raw).filter((key) => !applied.has(key) && !DESCRIPTIVE_KEYS.has(key));
  if (notApplied.length > 0) {
    warnings.push(`Not applied by the assembler (model, connection or app settings, kept in "settings" for the app): ${notApplied.join(', ')}`);
  }
  return { settings, regexScripts: regex.scripts, warnings };
}
