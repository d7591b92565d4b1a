import { KernelStorageError, type TreeStore } from '@troupe/kernel';
import * as z from 'zod';
import type { Persona } from '../wire/library.js';
import { deriveId } from './library-ids.js';
import { LibraryError } from './library-error.js';
import { commitItem, itemJson, listItems, readItem } from './tree-items.js';

/** The personas' folder under `<data>/library/`. */
export const PERSONAS_FOLDER = 'personas';
/** The folder under `<data>/library/` of the player's choices (the default persona). */
export const PREFERENCES_FOLDER = 'preferences';
const PERSONA_FILE = 'persona.json';
const DEFAULTS_TREE = 'defaults';
const DEFAULTS_FILE = 'defaults.json';
/** The persona every data directory starts with. */
export const STARTER_PERSONA = { id: 'user', name: 'User', description: '' } as const;

/** A persona's editable fields. */
export const PersonaFieldsSchema = z
  .object({
    name: z.string().trim().min(1, 'a persona needs a name').max(256),
    description: z.string().max(100_000),
  })
  .strict();

const DefaultsSchema = z.object({ personaId: z.string() });

/** The persona library: the player's names and descriptions, one of them the default. */
export class PersonaLibrary {
  readonly #trees: TreeStore;
  readonly #preferences: TreeStore;

  /**
   * @param trees - where personas are kept
   * @param preferences - where the default persona's id is kept
   */
  constructor(trees: TreeStore, preferences: TreeStore) {
    this.#trees = trees;
    this.#preferences = preferences;
  }

  /**
   * Creates a persona.
   * @param fields - name and description
   * @returns the persona
   */
  async create(fields: z.output<typeof PersonaFieldsSchema>): Promise<Persona> {
    const id = deriveId(fields.name, new Set(await this.#trees.list()), 'u');
    await this.#trees.create(id, { [PERSONA_FILE]: JSON.stringify(fields) });
    return this.get(id);
  }

  /**
   * Every persona (the starter persona is created on first use); one a hand edit broke is listed
   * under `broken`, as characters and presets are, so a broken default is not silently missing.
   * @returns personas by name, and the ids that could not be read
   */
  async list(): Promise<{ personas: Persona[]; broken: { id: string; message: string }[] }> {
    await this.#ensureStarter();
    const { items, broken } = await listItems(this.#trees, (id) => this.get(id));
    return { personas: items.sort((a, b) => a.name.localeCompare(b.name)), broken };
  }

  /**
   * One persona.
   * @param id - the persona id
   * @returns the persona
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_INVALID
   */
  async get(id: string): Promise<Persona> {
    if (id === STARTER_PERSONA.id) await this.#ensureStarter();
    const snapshot = await readItem(this.#trees, id, 'persona');
    const fields = itemJson(snapshot, PERSONA_FILE, PersonaFieldsSchema, PERSONAS_FOLDER);
    return { id, revision: snapshot.revision, ...fields, isDefault: id === (await this.defaultId()) };
  }

  /**
   * Changes a persona.
   * @param id - the persona id
   * @param baseRevision - the revision the edit was based on
   * @param edit - name and/or description
   * @returns the persona after the edit
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_REVISION_CONFLICT
   */
  async update(id: string, baseRevision: number, edit: Partial<z.output<typeof PersonaFieldsSchema>>): Promise<Persona> {
    const current = await this.get(id);
    await commitItem(this.#trees, id, baseRevision, { [PERSONA_FILE]: JSON.stringify({ name: edit.name ?? current.name, description: edit.description ?? current.description }) });
    return this.get(id);
  }

  /**
   * Deletes a persona (not the default one).
   * @param id - the persona id
   * @returns true
   * @throws {LibraryError} LIBRARY_READ_ONLY for the default persona, LIBRARY_NOT_FOUND
   */
  async delete(id: string): Promise<boolean> {
    await readItem(this.#trees, id, 'persona');
    if (id === (await this.defaultId())) throw new LibraryError('LIBRARY_READ_ONLY', 'The default persona cannot be deleted; make another one the default first');
    return this.#trees.delete(id);
  }

  /**
   * The id of the default persona (the starter persona until another is chosen).
   * @returns the id
   */
  async defaultId(): Promise<string> {
    try {
      const snapshot = await this.#preferences.read(DEFAULTS_TREE);
      return itemJson(snapshot, DEFAULTS_FILE, DefaultsSchema, PREFERENCES_FOLDER).personaId;
    } catch (error) {
      if (KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND') return STARTER_PERSONA.id;
      throw error;
    }
  }

  /**
   * Makes a persona the default for new chats.
   * @param id - the persona id
   * @returns the persona
   * @throws {LibraryError} LIBRARY_NOT_FOUND
   */
  async setDefault(id: string): Promise<Persona> {
    await readItem(this.#trees, id, 'persona');
    const text = JSON.stringify({ personaId: id });
    try {
      const current = await this.#preferences.read(DEFAULTS_TREE);
      await this.#preferences.commit(DEFAULTS_TREE, { baseRevision: current.revision, writes: { [DEFAULTS_FILE]: text } });
    } catch (error) {
      if (!(KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND')) throw error;
      await this.#preferences.create(DEFAULTS_TREE, { [DEFAULTS_FILE]: text });
    }
    return this.get(id);
  }

  async #ensureStarter(): Promise<void> {
    if ((await this.#trees.list()).length > 0) return;
    try {
      await this.#trees.create(STARTER_PERSONA.id, { [PERSONA_FILE]: JSON.stringify({ name: STARTER_PERSONA.name, description: STARTER_PERSONA.description }) });
    } catch (error) {
      // Two requests racing to create it: the other one won, which is just as good.
      if (!(KernelStorageError.isInstance(error) && error.code === 'TREE_EXISTS')) throw error;
    }
  }
}
