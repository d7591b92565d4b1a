import type { TreeStore } from '@troupe/kernel';
import { type Lorebook, importWorldInfo } from '@troupe/plugin-lorebook';
import * as z from 'zod';
import type { LorebookList, LorebookSummary } from '../wire/lore.js';
import { deriveId } from './library-ids.js';
import { LibraryError } from './library-error.js';
import { itemFilePath, itemJson, listItems, readItem } from './tree-items.js';

/** The lorebooks' folder under `<data>/library/`. */
export const LOREBOOKS_FOLDER = 'lorebooks';
const SOURCE_FILE = 'world-info.json';
const META_FILE = 'meta.json';

const MetaSchema = z.object({ name: z.string(), importedAt: z.string(), fileName: z.string().optional() });

/** A stored lorebook: its summary and the book as activation reads it. */
export interface LibraryLorebook extends LorebookSummary {
  /** Named by the library id, so entry ids (`<book>.<uid>`) stay unique across books. */
  readonly book: Lorebook;
}

/**
 * The lorebook library: standalone SillyTavern world-info files (or a card's `character_book`
 * saved on its own), kept verbatim so nothing is lost, re-read with the importer on every use.
 */
export class LorebookLibrary {
  readonly #trees: TreeStore;

  /** @param trees - where books are kept (a store of their own) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /**
   * Imports a world-info file.
   * @param text - the file's JSON text
   * @param fileName - its name (the book's display name when the file has none)
   * @returns the stored book
   * @throws {LorebookError} LOREBOOK_JSON_INVALID, LOREBOOK_TOO_LARGE, LOREBOOK_INVALID — nothing is stored then
   */
  async import(text: string, fileName?: string): Promise<LibraryLorebook> {
    // Validate first: a file that does not import is never stored.
    importWorldInfo(text);
    // ST names a book after its file; some files carry a name of their own.
    const own = (JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as { name?: unknown }).name;
    const fileNamed = fileName?.replace(/\.json$/i, '').trim();
    const name = (typeof own === 'string' && own.trim() !== '' ? own.trim() : undefined) ?? (fileNamed || 'World info');
    const id = deriveId(name, new Set(await this.#trees.list()), 'w');
    const meta = { name: name.slice(0, 256), importedAt: new Date().toISOString(), ...(fileName ? { fileName: fileName.slice(0, 256) } : {}) };
    await this.#trees.create(id, { [SOURCE_FILE]: text, [META_FILE]: JSON.stringify(meta) });
    return this.get(id);
  }

  /**
   * One book.
   * @param id - the book id
   * @returns the book
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_INVALID (a hand edit broke it)
   */
  async get(id: string): Promise<LibraryLorebook> {
    const snapshot = await readItem(this.#trees, id, 'lorebook');
    const meta = itemJson(snapshot, META_FILE, MetaSchema, LOREBOOKS_FOLDER);
    const text = snapshot.files[SOURCE_FILE];
    if (text === undefined) throw new LibraryError('LIBRARY_INVALID', `${itemFilePath(LOREBOOKS_FOLDER, id, SOURCE_FILE)} is missing`);
    let imported: ReturnType<typeof importWorldInfo>;
    try {
      imported = importWorldInfo(text, { name: id, scope: 'global' });
    } catch (error) {
      throw new LibraryError('LIBRARY_INVALID', `${itemFilePath(LOREBOOKS_FOLDER, id, SOURCE_FILE)}: ${(error as Error).message}`);
    }
    return { id, name: meta.name, entries: imported.book.entries.length, skipped: imported.skipped, importedAt: meta.importedAt, book: imported.book };
  }

  /**
   * Every book, by name.
   * @returns summaries and the ids that could not be read
   */
  async list(): Promise<LorebookList> {
    const { items, broken } = await listItems(this.#trees, (id) => this.get(id));
    const lorebooks = items.map(({ book: _book, ...summary }) => summary).sort((a, b) => a.name.localeCompare(b.name));
    return { lorebooks, broken };
  }

  /**
   * Deletes a book (chats that attached it simply stop using it).
   * @param id - the book id
   * @returns true
   * @throws {LibraryError} LIBRARY_NOT_FOUND
   */
  async delete(id: string): Promise<boolean> {
    await readItem(this.#trees, id, 'lorebook');
    return this.#trees.delete(id);
  }
}
