import type { TreeStore } from '@troupe/kernel';
import {
  type DioAbsorbOption,
  type DioPreparationReport,
  type Preset,
  type PresetReport,
  PresetSchema,
  importSillyTavernPreset,
  prepareForDio,
  validatePreset,
} from '@troupe/plugin-actor-assembler';
import * as z from 'zod';
import type { PresetSummary } from '../wire/library.js';
import { CHAT_DEFAULT_PRESET } from './chat-default-preset.js';
import { deriveId } from './library-ids.js';
import { LibraryError } from './library-error.js';
import { commitItem, itemJson, listItems, readItem } from './tree-items.js';
import { chatPresetWarnings } from './preset-generation.js';

/** The id of the built-in preset (always there, read-only). */
export const DEFAULT_PRESET_ID = 'default';

/** The presets' folder under `<data>/library/`. */
export const PRESETS_FOLDER = 'presets';
const PRESET_FILE = 'preset.json';

const StoredPresetSchema = z.object({
  name: z.string(),
  preset: PresetSchema,
  /** The file's other settings (temperature, …), unchanged. */
  settings: z.record(z.string(), z.unknown()),
  /** What the importer did not apply as SillyTavern would. */
  warnings: z.array(z.string()),
  importedAt: z.string(),
  fileName: z.string().optional(),
  /** What preparing it for DIO did (`prepareForDio`'s report), when it was prepared. */
  dioPreparation: z.record(z.string(), z.unknown()).optional(),
});

/** A preset with the importer's warnings and the assembler's pre-flight report. */
export interface LibraryPreset extends PresetSummary {
  readonly preset: Preset;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly importWarnings: readonly string[];
  /** What `validatePreset` returns for it (issues, DIO slot or why not, story-draft placement, warnings). */
  readonly report: Omit<PresetReport, 'preset'>;
  readonly importedAt: string | null;
  /** What preparing it for DIO did (status, the `roleplay` prompt, what was turned off, what still carries character text), when it was prepared. */
  readonly dioPreparation: DioPreparationReport | null;
}

/** Options of {@link PresetLibrary.import}. */
export interface PresetImportOptions {
  /** Prepare the preset for DIO while importing (`markers`, `all`, or identifiers to move; see `prepareForDio`). */
  readonly prepareForDio?: DioAbsorbOption;
}

/** The preset library: the built-in default plus imported SillyTavern chat-completion presets. */
export class PresetLibrary {
  readonly #trees: TreeStore;

  /** @param trees - where imported presets are kept (a store of their own) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /**
   * Imports a SillyTavern chat-completion preset.
   * @param text - the file's JSON text
   * @param fileName - its name (the preset's name when the file has none)
   * @param options - `prepareForDio` to prepare it for DIO while importing
   * @returns the stored preset with its report
   * @throws {AssemblerError} IMPORT_TOO_LARGE, IMPORT_JSON_INVALID, IMPORT_PRESET_INVALID
   */
  async import(text: string, fileName?: string, options: PresetImportOptions = {}): Promise<LibraryPreset> {
    const imported = importSillyTavernPreset(text, options.prepareForDio !== undefined ? { prepareForDio: { absorb: options.prepareForDio } } : {});
    const name = imported.preset.name ?? fileName?.replace(/\.json$/i, '') ?? 'Imported preset';
    const taken = new Set([DEFAULT_PRESET_ID, ...(await this.#trees.list())]);
    const id = deriveId(name, taken, 'p');
    const stored: z.output<typeof StoredPresetSchema> = {
      name: name.slice(0, 256),
      preset: imported.preset as z.output<typeof PresetSchema>,
      settings: { ...imported.settings },
      warnings: [...imported.warnings],
      importedAt: new Date().toISOString(),
      ...(fileName ? { fileName: fileName.slice(0, 256) } : {}),
      ...(imported.dio ? { dioPreparation: { ...imported.dio } } : {}),
    };
    await this.#trees.create(id, { [PRESET_FILE]: JSON.stringify(stored) });
    return this.get(id);
  }

  /**
   * Prepares an imported preset for DIO (`prepareForDio`) and stores the result with its report:
   * a `roleplay` prompt at the character definition, the markers it replaces off. A preset that
   * already has its slot, or whose slots are ambiguous, is left as it is (the report says so).
   * @param id - the preset id
   * @param absorb - which definition prompts may move into the `roleplay` prompt (default `markers`)
   * @returns the preset with its new report and `dioPreparation`
   * @throws {LibraryError} LIBRARY_READ_ONLY for the built-in preset, LIBRARY_NOT_FOUND, LIBRARY_INVALID, LIBRARY_REVISION_CONFLICT
   */
  async prepareForDio(id: string, absorb: DioAbsorbOption = 'markers'): Promise<LibraryPreset> {
    if (id === DEFAULT_PRESET_ID) throw new LibraryError('LIBRARY_READ_ONLY', 'The built-in default preset already has its DIO slot and cannot be changed');
    const snapshot = await readItem(this.#trees, id, 'preset');
    const stored = itemJson(snapshot, PRESET_FILE, StoredPresetSchema, PRESETS_FOLDER);
    const prepared = prepareForDio(stored.preset, { absorb });
    const next = { ...stored, preset: prepared.preset as z.output<typeof PresetSchema>, dioPreparation: { ...prepared.report } };
    await commitItem(this.#trees, id, snapshot.revision, { [PRESET_FILE]: JSON.stringify(next) });
    return this.get(id);
  }

  /**
   * The built-in preset first, then imported ones by name.
   * @returns summaries
   */
  async list(): Promise<{ presets: PresetSummary[]; broken: { id: string; message: string }[] }> {
    const { items, broken } = await listItems(this.#trees, (id) => this.get(id));
    const imported = items.map(summaryOf).sort((a, b) => a.name.localeCompare(b.name));
    return { presets: [summaryOf(builtIn()), ...imported], broken };
  }

  /**
   * One preset.
   * @param id - the preset id (`default` for the built-in one)
   * @returns the preset with its import warnings and pre-flight report
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_INVALID
   */
  async get(id: string): Promise<LibraryPreset> {
    if (id === DEFAULT_PRESET_ID) return builtIn();
    const stored = itemJson(await readItem(this.#trees, id, 'preset'), PRESET_FILE, StoredPresetSchema, PRESETS_FOLDER);
    return withReport(id, stored.name, stored.preset, stored.settings, stored.warnings, stored.importedAt, false, (stored.dioPreparation as DioPreparationReport | undefined) ?? null);
  }

  /**
   * Deletes an imported preset.
   * @param id - the preset id
   * @returns true
   * @throws {LibraryError} LIBRARY_READ_ONLY for the built-in preset, LIBRARY_NOT_FOUND
   */
  async delete(id: string): Promise<boolean> {
    if (id === DEFAULT_PRESET_ID) throw new LibraryError('LIBRARY_READ_ONLY', 'The built-in default preset cannot be deleted');
    await readItem(this.#trees, id, 'preset');
    return this.#trees.delete(id);
  }
}

function builtIn(): LibraryPreset {
  return withReport(DEFAULT_PRESET_ID, CHAT_DEFAULT_PRESET.name ?? 'Troupe chat default', CHAT_DEFAULT_PRESET, {}, [], null, true);
}

function withReport(
  id: string,
  name: string,
  preset: Preset,
  settings: Readonly<Record<string, unknown>>,
  warnings: readonly string[],
  importedAt: string | null,
  isBuiltIn = false,
  dioPreparation: DioPreparationReport | null = null,
): LibraryPreset {
  const { preset: _validated, ...report } = validatePreset(preset);
  const shown = chatPresetWarnings(warnings, settings);
  return {
    id,
    name,
    builtIn: isBuiltIn,
    prompts: preset.prompts.length,
    warnings: shown.length + report.warnings.length,
    dioAccepts: report.dio.accepts,
    preset,
    settings,
    importWarnings: shown,
    report,
    importedAt,
    dioPreparation,
  };
}

function summaryOf(preset: LibraryPreset): PresetSummary {
  return { id: preset.id, name: preset.name, builtIn: preset.builtIn, prompts: preset.prompts, warnings: preset.warnings, dioAccepts: preset.dioAccepts };
}
