import { formatIssues } from '@troupe/kernel';
import * as z from 'zod';
import { AssemblerError } from '../errors.js';
import { type DioPreparationReport, type PrepareForDioOptions, prepareForDio } from '../dio-prepare/prepare-for-dio.js';
import { type Preset, type PromptEntry, parsePreset } from '../preset.js';
import { sillyTavernPresetExtras } from './sillytavern-settings.js';

/** Largest SillyTavern preset accepted (characters). */
export const MAX_PRESET_JSON_BYTES = 2 * 1024 * 1024;

/** What {@link importSillyTavernPreset} returns. */
export interface SillyTavernPresetImport {
  readonly preset: Preset;
  /** Everything in the file except `prompts` / `prompt_order` (temperature, …), unchanged. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** What was mapped approximately or kept disabled, in words. */
  readonly warnings: readonly string[];
  /** With `prepareForDio`: what the DIO preparation did (then `preset` is the prepared preset). */
  readonly dio?: DioPreparationReport;
}

/** Options of {@link importSillyTavernPreset}. */
export interface SillyTavernPresetImportOptions {
  /**
   * Also prepare the preset for DIO (`true` or the options of `prepareForDio`): a `roleplay` prompt
   * at the character definition, the markers it replaces turned off, and the report in `dio`.
   */
  readonly prepareForDio?: boolean | PrepareForDioOptions;
}

const stPromptSchema = z.looseObject({
  identifier: z.string().min(1).max(256),
  name: z.string().max(256).optional(),
  role: z.enum(['system', 'user', 'assistant']).optional(),
  content: z.string().max(1_000_000).optional(),
  system_prompt: z.boolean().optional(),
  marker: z.boolean().optional(),
  enabled: z.boolean().optional(),
  injection_position: z.number().optional(),
  injection_depth: z.number().optional(),
  injection_order: z.number().optional(),
  injection_trigger: z.array(z.unknown()).optional(),
  forbid_overrides: z.boolean().optional(),
});
const stOrderSchema = z.looseObject({
  character_id: z.union([z.number(), z.string()]),
  order: z.array(z.looseObject({ identifier: z.string(), enabled: z.boolean().optional() })),
});
const stPresetSchema = z.looseObject({
  prompts: z.array(stPromptSchema).max(10_000),
  prompt_order: z.array(stOrderSchema).optional(),
});

// SillyTavern's marker prompts, mapped to the macro that produces the same text.
const MARKER_CONTENT: Readonly<Record<string, string>> = {
  charDescription: '{{description}}',
  charPersonality: '{{personality}}',
  scenario: '{{scenario}}',
  personaDescription: '{{persona}}',
  dialogueExamples: '{{mesExamples}}',
  worldInfoBefore: '{{getvar::worldInfoBefore}}',
  worldInfoAfter: '{{getvar::worldInfoAfter}}',
};

// ST keeps one global order under a dummy character id (100001; older files 100000).
function pickOrder(orders: z.output<typeof stOrderSchema>[] | undefined): z.output<typeof stOrderSchema> | undefined {
  if (!orders || orders.length === 0) return undefined;
  return orders.find((o) => String(o.character_id) === '100001') ?? orders.find((o) => String(o.character_id) === '100000') ?? orders[0];
}

function mapPrompt(prompt: z.output<typeof stPromptSchema>, enabled: boolean, warnings: string[]): PromptEntry {
  const base = { identifier: prompt.identifier, name: prompt.name ?? prompt.identifier, role: prompt.role ?? 'system', enabled } as const;
  if (prompt.identifier === 'chatHistory') return { ...base, content: '', marker: 'chatHistory' };
  if ((prompt.injection_trigger?.length ?? 0) > 0) {
    warnings.push(`Prompt "${prompt.identifier}" is limited to some generation types (injection_trigger); it is used for every generation`);
  }
  // SillyTavern's in-chat injection: placed at a depth from the end of the chat (default 4).
  const injection =
    prompt.injection_position === 1 && prompt.marker !== true
      ? {
          injectionDepth: Math.min(10_000, Math.max(0, Math.trunc(Number.isFinite(prompt.injection_depth) ? (prompt.injection_depth as number) : 4))),
          ...(Number.isFinite(prompt.injection_order) ? { injectionOrder: prompt.injection_order as number } : {}),
        }
      : {};
  if (prompt.marker === true) {
    const content = MARKER_CONTENT[prompt.identifier];
    if (content === undefined) warnings.push(`Unknown SillyTavern marker "${prompt.identifier}" imported as an empty prompt`);
    return { ...base, content: content ?? '' };
  }
  return { ...base, content: prompt.content ?? '', ...(prompt.forbid_overrides === true ? { forbidOverrides: true } : {}), ...injection };
}

/**
 * Imports a SillyTavern chat-completion preset (its `prompts` and `prompt_order`): order and
 * enabled flags come from the global prompt order; marker prompts become macros
 * (`charDescription` → `{{description}}`, …); `chatHistory` becomes the history marker; in-chat
 * injections keep their depth and order; the settings the assembler applies (squashing, prefill,
 * names, formats, …) and the regex scripts come along. Prompts missing from the order are kept,
 * disabled, at the end, so nothing is lost; every setting the assembler does not apply is named in
 * `warnings`.
 * @param input - the preset file's JSON text or parsed object
 * @param options - `prepareForDio` to also prepare the preset for DIO (see `prepareForDio`)
 * @returns the preset, the other settings, warnings, and the DIO preparation report when asked
 * @throws {AssemblerError} IMPORT_TOO_LARGE, IMPORT_JSON_INVALID, IMPORT_PRESET_INVALID
 */
export function importSillyTavernPreset(input: string | object, options: SillyTavernPresetImportOptions = {}): SillyTavernPresetImport {
  let value: unknown = input;
  if (typeof input === 'string') {
    if (input.length > MAX_PRESET_JSON_BYTES) throw new AssemblerError('IMPORT_TOO_LARGE', `Preset JSON is ${input.length} characters; the limit is ${MAX_PRESET_JSON_BYTES}`);
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new AssemblerError('IMPORT_JSON_INVALID', `Preset is not valid JSON: ${(cause as Error).message}`, { cause });
    }
  }
  const parsed = stPresetSchema.safeParse(value);
  if (!parsed.success) throw new AssemblerError('IMPORT_PRESET_INVALID', `Not a SillyTavern chat-completion preset: ${formatIssues(parsed.error)}`);
  const { prompts: stPrompts, prompt_order: orders, ...settings } = parsed.data;
  const warnings: string[] = [];
  const byId = new Map<string, z.output<typeof stPromptSchema>>();
  for (const prompt of stPrompts) {
    if (byId.has(prompt.identifier)) warnings.push(`Duplicate prompt "${prompt.identifier}": the first one is used`);
    else byId.set(prompt.identifier, prompt);
  }
  const order = pickOrder(orders);
  if (order === undefined) warnings.push('No prompt_order: prompts are used in file order');
  const entries = order?.order ?? stPrompts.map((prompt) => ({ identifier: prompt.identifier, enabled: prompt.enabled ?? true }));
  const used = new Set<string>();
  const prompts: PromptEntry[] = [];
  for (const entry of entries) {
    const prompt = byId.get(entry.identifier);
    if (prompt === undefined) {
      warnings.push(`prompt_order names "${entry.identifier}", which is not in prompts; skipped`);
      continue;
    }
    if (used.has(entry.identifier)) continue;
    used.add(entry.identifier);
    prompts.push(mapPrompt(prompt, entry.enabled ?? true, warnings));
  }
  for (const prompt of byId.values()) {
    if (used.has(prompt.identifier)) continue;
    warnings.push(`Prompt "${prompt.identifier}" is not in prompt_order; kept, disabled, at the end`);
    prompts.push(mapPrompt(prompt, false, warnings));
  }
  if (!prompts.some((prompt) => prompt.marker === 'chatHistory')) {
    warnings.push('No chatHistory prompt: one was added at the end so the history is never dropped');
    prompts.push({ identifier: 'chatHistory', name: 'Chat History', role: 'system', content: '', marker: 'chatHistory' });
  }
  const name = typeof settings['name'] === 'string' ? settings['name'] : undefined;
  const extras = sillyTavernPresetExtras(settings);
  warnings.push(...extras.warnings);
  let preset: Preset;
  try {
    preset = parsePreset({
      ...(name !== undefined ? { name: name.slice(0, 256) } : {}),
      prompts,
      ...(Object.keys(extras.settings).length > 0 ? { settings: extras.settings } : {}),
      ...(extras.regexScripts.length > 0 ? { regexScripts: extras.regexScripts } : {}),
    });
  } catch (cause) {
    throw new AssemblerError('IMPORT_PRESET_INVALID', `SillyTavern preset maps to an invalid preset: ${(cause as Error).message}`, { cause });
  }
  const prepare = options?.prepareForDio;
  if (prepare === undefined || prepare === false) return { preset, settings, warnings };
  const prepared = prepareForDio(preset, prepare === true ? {} : prepare);
  return { preset: prepared.preset, settings, warnings, dio: prepared.report };
}
