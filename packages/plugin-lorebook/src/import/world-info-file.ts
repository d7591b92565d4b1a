import * as z from 'zod';
import type { LorebookScope } from '../entry.js';
import { LorebookError, describeZodIssues } from '../errors.js';
import { characterBookItems } from './character-book.js';
import { collectEntries } from './collect-entries.js';
import type { LorebookImport } from './import-result.js';
import { parseLorebookJson } from './parse-json.js';

/** Options of {@link importWorldInfo}. */
export interface ImportWorldInfoOptions {
  /** The book's name (SillyTavern uses the file name); default the file's `name` field, else `world`. */
  readonly name?: string;
  /** Where the book is attached (default `global`). */
  readonly scope?: LorebookScope;
}

const WorldInfoFileSchema = z.looseObject({
  name: z.string().optional(),
  entries: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
});

/**
 * Imports a standalone SillyTavern world-info file: `{entries: {"<uid>": entry, …}}` (entries keyed
 * by uid, as ST saves them). Also accepted, as ST's importer does: `entries` as an array, and a
 * card's `character_book` saved on its own (entries with `keys` instead of `key`).
 * @param input - JSON text or the parsed object
 * @param options - name and scope
 * @returns the book and the entries that could not be placed
 * @throws {LorebookError} LOREBOOK_JSON_INVALID, LOREBOOK_TOO_LARGE, LOREBOOK_INVALID
 */
export function importWorldInfo(input: string | object, options: ImportWorldInfoOptions = {}): LorebookImport {
  const value = typeof input === 'string' ? parseLorebookJson(input) : input;
  const parsed = WorldInfoFileSchema.safeParse(value);
  if (!parsed.success) {
    const described = describeZodIssues(parsed.error.issues);
    throw new LorebookError('LOREBOOK_INVALID', `Not a world-info file: ${described.summary}`, { issues: described.issues });
  }
  const name = options.name ?? parsed.data.name ?? 'world';
  const scope = options.scope ?? 'global';
  const raw = parsed.data.entries;
  const list = Array.isArray(raw) ? raw.map((entry, index) => [String(index), entry] as const) : Object.entries(raw);
  const looksLikeCharacterBook = list.length > 0 && list.every(([, entry]) => typeof entry === 'object' && entry !== null && 'keys' in entry && !('key' in entry));
  if (looksLikeCharacterBook && Array.isArray(raw)) {
    const { items, skipped } = characterBookItems(raw);
    return collectEntries(name, scope, items, skipped);
  }
  return collectEntries(
    name,
    scope,
    list.map(([uid, entry]) => [uid, entry, `entries.${uid}`] as const),
  );
}
