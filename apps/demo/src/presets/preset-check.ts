import {
  type CharacterTextFinding,
  type DioAbsorbOption,
  type DioPreparationReport,
  describeCharacterText,
  importSillyTavernPreset,
  MAX_PRESET_JSON_BYTES,
  type Preset,
  PresetSchema,
  prepareForDio,
  validatePreset,
} from '@troupe/plugin-actor-assembler';

/** Whether DIO can use a preset as it stands, and what would stand next to its compiled prompt. */
export interface DioPreflight {
  /** True when a DIO compiled prompt has its one slot. */
  readonly accepts: boolean;
  /** The prompt DIO replaces (accepts only): its identifier, name and slot rule. */
  readonly replaces: { readonly identifier: string; readonly name: string; readonly rule: 'roleplay' | 'placeholder' } | undefined;
  /** Why not (the code a DIO turn fails with), when it does not accept. */
  readonly reason: { readonly code: string; readonly message: string } | undefined;
  /** Prompts that still carry character text: warnings when DIO accepts, the definition's carriers otherwise. */
  readonly characterText: readonly CharacterTextFinding[];
  /** One actionable sentence per prompt in `characterText`. */
  readonly warnings: readonly string[];
  /** True when DIO accepts and its compiled prompt would be the only character definition. */
  readonly clean: boolean;
}

/** The full check of one preset, as the CLI prints it and the API returns it. */
export interface PresetCheck {
  readonly name: string | undefined;
  /** `sillytavern` for a SillyTavern chat-completion file, `troupe` for a Troupe preset. */
  readonly format: 'sillytavern' | 'troupe';
  readonly prompts: number;
  /** What the SillyTavern importer mapped approximately or kept disabled. */
  readonly importWarnings: readonly string[];
  /** The preset as imported. */
  readonly asImported: DioPreflight;
  /** What `prepareForDio` does with it, and the pre-flight of the result. */
  readonly prepared: { readonly report: DioPreparationReport; readonly preflight: DioPreflight; readonly preset: Preset };
}

/**
 * The DIO pre-flight of a preset (`validatePreset`'s DIO part, in a form a view can show).
 * @param preset - a valid preset
 * @returns accepts, the prompt replaced or why not, and the character text left
 */
export function dioPreflight(preset: Preset): DioPreflight {
  const report = validatePreset(preset);
  const dio = report.dio;
  return {
    accepts: dio.accepts,
    replaces: dio.accepts ? { identifier: dio.slot.identifier, name: dio.name, rule: dio.slot.rule } : undefined,
    reason: dio.accepts ? undefined : { code: dio.reason.code, message: dio.reason.message },
    characterText: report.characterText,
    warnings: report.characterText.map(describeCharacterText),
    clean: dio.accepts && report.characterText.length === 0,
  };
}

/**
 * Checks a preset: its DIO pre-flight as it is, and what preparing it for DIO does.
 * @param preset - a valid preset
 * @param options - which definition prompts preparation may move (default `'markers'`)
 * @param imported - format and import warnings, when the preset came from a file
 * @returns the check
 * @throws {AssemblerError} PRESET_INVALID for an invalid preset
 */
export function checkPreset(preset: Preset, options: { absorb?: DioAbsorbOption } = {}, imported: { format: PresetCheck['format']; warnings: readonly string[] } = { format: 'troupe', warnings: [] }): PresetCheck {
  const prepared = prepareForDio(preset, options.absorb !== undefined ? { absorb: options.absorb } : {});
  return {
    name: preset.name,
    format: imported.format,
    prompts: preset.prompts.length,
    importWarnings: imported.warnings,
    asImported: dioPreflight(preset),
    prepared: { report: prepared.report, preflight: dioPreflight(prepared.preset), preset: prepared.preset },
  };
}

/**
 * Checks a preset file: a SillyTavern chat-completion preset, or a Troupe preset (`{prompts}` in
 * Troupe's shape).
 * @param input - the file's JSON text or parsed value
 * @param options - which definition prompts preparation may move, and the file's name (a
 *   SillyTavern preset's name)
 * @returns the check
 * @throws {AssemblerError} IMPORT_JSON_INVALID, IMPORT_TOO_LARGE, IMPORT_PRESET_INVALID
 */
export function checkPresetFile(input: string | object, options: { absorb?: DioAbsorbOption; fileName?: string } = {}): PresetCheck {
  // An oversized file goes straight to the importer, which refuses it before parsing.
  const value = typeof input !== 'string' ? input : input.length > MAX_PRESET_JSON_BYTES ? undefined : safeJson(input);
  const troupe = value === undefined ? undefined : PresetSchema.safeParse(value);
  if (troupe?.success) return checkPreset(troupe.data, options);
  const imported = importSillyTavernPreset(input);
  // SillyTavern presets carry no name of their own: SillyTavern lists them by file name.
  const named = imported.preset.name === undefined && options.fileName ? { ...imported.preset, name: options.fileName.replace(/\.json$/i, '') } : imported.preset;
  return checkPreset(named, options, { format: 'sillytavern', warnings: imported.warnings });
}

// Invalid JSON is reported by the importer with its own code and message.
function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
