import * as z from 'zod';
import type { LorebookScope } from '../entry.js';
import { LorebookError, describeZodIssues } from '../errors.js';
import { collectEntries } from './collect-entries.js';
import type { LorebookImport, SkippedEntry } from './import-result.js';
import { parseLorebookJson } from './parse-json.js';
import { SCAN_SOURCES, SCAN_SOURCE_CARD_FLAGS, SCAN_SOURCE_FLAGS } from '../scan-sources.js';

/** Options of {@link importCharacterBook}. */
export interface ImportCharacterBookOptions {
  /** The book's name (default the book's `name`, else `character`). */
  readonly name?: string;
  /** Where the book is attached (default `character`). */
  readonly scope?: LorebookScope;
}

const CharacterBookSchema = z.looseObject({
  name: z.string().optional(),
  entries: z.array(z.unknown()),
});

const entryShape = z.looseObject({
  id: z.union([z.number(), z.string()]).nullish(),
  enabled: z.boolean().nullish(),
  position: z.unknown().optional(),
  extensions: z.looseObject({}).nullish(),
});

function pick(extensions: Record<string, unknown>, key: string, fallback: unknown): unknown {
  return extensions[key] ?? fallback;
}

/**
 * Maps one V2/V3 `character_book` entry onto SillyTavern's world-info field names, the way ST's
 * `convertCharacterBook` does: spec fields first, ST's own settings from `extensions`.
 */
function toStShape(raw: unknown, index: number): unknown {
  const shape = entryShape.safeParse(raw);
  if (!shape.success) return raw; // let the entry schema report what is wrong
  const entry = raw as Record<string, unknown>;
  const ext = (shape.data.extensions ?? {}) as Record<string, unknown>;
  const specPosition = entry['position'] === 'before_char' ? 0 : 1;
  // V3 `use_regex` is ignored, as ST does: ST's own exporter writes `use_regex: true` on every
  // entry, plain keys included, so honouring it would change what real cards activate.
  return {
    uid: shape.data.id ?? index,
    key: entry['keys'],
    keysecondary: entry['secondary_keys'] ?? [],
    comment: entry['comment'] ?? entry['name'] ?? '',
    content: entry['content'],
    constant: entry['constant'] ?? false,
    selective: entry['selective'] ?? false,
    order: entry['insertion_order'] ?? 100,
    position: pick(ext, 'position', specPosition),
    // Missing `enabled` is malformed per spec; treating it as on loses nothing the author wrote.
    disable: shape.data.enabled === false,
    excludeRecursion: pick(ext, 'exclude_recursion', false),
    preventRecursion: pick(ext, 'prevent_recursion', false),
    delayUntilRecursion: pick(ext, 'delay_until_recursion', false),
    probability: pick(ext, 'probability', 100),
    useProbability: pick(ext, 'useProbability', true),
    depth: pick(ext, 'depth', undefined),
    selectiveLogic: pick(ext, 'selectiveLogic', 0),
    group: pick(ext, 'group', ''),
    groupOverride: pick(ext, 'group_override', false),
    groupWeight: pick(ext, 'group_weight', undefined),
    scanDepth: pick(ext, 'scan_depth', null),
    caseSensitive: pick(ext, 'case_sensitive', entry['case_sensitive'] ?? null),
    matchWholeWords: pick(ext, 'match_whole_words', null),
    useGroupScoring: pick(ext, 'use_group_scoring', null),
    role: pick(ext, 'role', 0),
    sticky: pick(ext, 'sticky', null),
    cooldown: pick(ext, 'cooldown', null),
    delay: pick(ext, 'delay', null),
    ignoreBudget: pick(ext, 'ignore_budget', false),
    outletName: pick(ext, 'outlet_name', ''),
    triggers: pick(ext, 'triggers', []),
    // ST's convertCharacterBook: `matchPersonaDescription: entry.extensions?.match_persona_description ?? false`, …
    ...Object.fromEntries(SCAN_SOURCES.map((source) => [SCAN_SOURCE_FLAGS[source], pick(ext, SCAN_SOURCE_CARD_FLAGS[source], false)])),
  };
}

/** A `character_book`'s entries in SillyTavern's order, ready for {@link collectEntries}. */
export interface CharacterBookItems {
  /** `[fallbackUid, entry, path]` per entry that ST keeps. */
  readonly items: (readonly [string, unknown, string])[];
  /** Entries whose id a later entry reuses (ST overwrites them). */
  readonly skipped: SkippedEntry[];
}

/**
 * The entries of a `character_book`, mapped to ST's shape, in the order ST reads them. ST's
 * `convertCharacterBook` stores each entry as `entries[entry.id]` (the array index when there is
 * no id) and reads the object back with `Object.keys`: integer ids come first in ascending order,
 * other ids after in file order, and a repeated id overwrites the earlier entry (which keeps its
 * place in that order). A plain object here gives exactly JavaScript's key order.
 * @param entries - the book's `entries` array
 * @returns the entries ST keeps, in its order, and the overwritten ones
 */
export function characterBookItems(entries: readonly unknown[]): CharacterBookItems {
  const byId: Record<string, readonly [string, unknown, string]> = Object.create(null);
  const skipped: SkippedEntry[] = [];
  for (const [index, entry] of entries.entries()) {
    const shaped = toStShape(entry, index);
    const id = idOf(entry) ?? index;
    const key = String(id);
    if (key in byId) skipped.push({ uid: key, reason: 'duplicate id: a later entry with this id was kept (as in SillyTavern)' });
    byId[key] = [String(index), shaped, `entries.${index}`] as const;
  }
  return { items: Object.keys(byId).map((key) => byId[key]!), skipped };
}

function idOf(entry: unknown): string | number | undefined {
  const shape = entryShape.safeParse(entry);
  return shape.success ? (shape.data.id ?? undefined) : undefined;
}

/**
 * Imports a card's embedded `character_book` (Character Card V2/V3 spec fields, SillyTavern's
 * settings in each entry's `extensions`).
 * @param input - the book object (or its JSON text)
 * @param options - name and scope
 * @returns the book and the entries that could not be placed
 * @throws {LorebookError} LOREBOOK_JSON_INVALID, LOREBOOK_TOO_LARGE, LOREBOOK_INVALID
 */
export function importCharacterBook(input: string | object, options: ImportCharacterBookOptions = {}): LorebookImport {
  const value = typeof input === 'string' ? parseLorebookJson(input) : input;
  const parsed = CharacterBookSchema.safeParse(value);
  if (!parsed.success) {
    const described = describeZodIssues(parsed.error.issues);
    throw new LorebookError('LOREBOOK_INVALID', `Not a character book: ${described.summary}`, { issues: described.issues });
  }
  const name = options.name ?? (parsed.data.name !== undefined && parsed.data.name.trim() !== '' ? parsed.data.name : 'character');
  const { items, skipped } = characterBookItems(parsed.data.entries);
  return collectEntries(name, options.scope ?? 'character', items, skipped);
}

/**
 * The embedded book of a parsed V2/V3 card (`card.data.character_book`), if it has one.
 * @param card - a parsed card object
 * @param options - name (default the card's name) and scope
 * @returns the import, or undefined when the card has no book
 * @throws {LorebookError} as {@link importCharacterBook}
 */
export function importCardLorebook(card: unknown, options: ImportCharacterBookOptions = {}): LorebookImport | undefined {
  const data = typeof card === 'object' && card !== null ? (card as { data?: unknown }).data : undefined;
  const book = typeof data === 'object' && data !== null ? (data as { character_book?: unknown; name?: unknown }).character_book : undefined;
  if (book === undefined || book === null) return undefined;
  if (typeof book !== 'object') throw new LorebookError('LOREBOOK_INVALID', 'The card\'s character_book is not an object');
  const cardName = (data as { name?: unknown }).name;
  const bookName = (book as { name?: unknown }).name;
  const name = options.name ?? (typeof bookName === 'string' && bookName.trim() !== '' ? bookName : typeof cardName === 'string' && cardName !== '' ? cardName : 'character');
  return importCharacterBook(book, { ...options, name });
}
