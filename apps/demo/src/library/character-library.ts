import type { TreeStore } from '@troupe/kernel';
import {
  type CardV3,
  type CharacterCardImport,
  embedCharacterCard,
  importCharacterCard,
  isPng,
  toCardV3,
} from '@troupe/plugin-actor-assembler';
import * as z from 'zod';
import type { CharacterSummary } from '../wire/library.js';
import { applyCardEdit } from './card-top-level-copies.js';
import { type AvatarImage, placeholderPng, sniffImage, stripCardChunks } from './avatar-image.js';
import { deriveId } from './library-ids.js';
import { LibraryError } from './library-error.js';
import { commitItem, itemFilePath, itemJson, listItems, readItem } from './tree-items.js';

/** Largest card file the library takes (bytes): SillyTavern-sized PNGs with big lorebooks fit. */
export const MAX_CARD_FILE_BYTES = 20 * 1024 * 1024;

/** The characters' folder under `<data>/library/`. */
export const CHARACTERS_FOLDER = 'characters';
const CARD_FILE = 'card.json';
const AVATAR_FILE = 'avatar.json';
const META_FILE = 'meta.json';

const MetaSchema = z.object({
  format: z.enum(['json', 'png', 'charx']),
  notes: z.array(z.string()),
  importedAt: z.string(),
  fileName: z.string().optional(),
});
const AvatarSchema = z.object({ mime: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/gif']), base64: z.string() });

/** A library character: the parsed card and what the import noted. */
export interface LibraryCharacter extends CharacterSummary {
  readonly card: CharacterCardImport;
  readonly notes: readonly string[];
  readonly importedAt: string;
}

/** The card fields the character view edits (names as in the card's `data`). */
export const CharacterEditSchema = z
  .object({
    name: z.string().trim().min(1).max(1024),
    nickname: z.string().max(1024),
    description: z.string().max(2_000_000),
    personality: z.string().max(2_000_000),
    scenario: z.string().max(2_000_000),
    first_mes: z.string().max(2_000_000),
    alternate_greetings: z.array(z.string().max(2_000_000)).max(1000),
    mes_example: z.string().max(2_000_000),
    creator_notes: z.string().max(2_000_000),
    system_prompt: z.string().max(2_000_000),
    post_history_instructions: z.string().max(2_000_000),
    tags: z.array(z.string().max(256)).max(1000),
    creator: z.string().max(1024),
    character_version: z.string().max(256),
  })
  .partial()
  .strict();

/** An edit of a character's card fields. */
export type CharacterEdit = z.output<typeof CharacterEditSchema>;

/**
 * The character library: imported cards kept verbatim (every unknown field and extension, so an
 * export loses nothing), one tree per character with `card.json`, `avatar.json` and `meta.json`.
 */
export class CharacterLibrary {
  readonly #trees: TreeStore;

  /** @param trees - where characters are kept (a store of their own) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /**
   * Imports a card file (PNG, CHARX, or V1/V2/V3 JSON), leniently where nothing is lost.
   * @param bytes - the file
   * @param fileName - its name, kept for the record
   * @returns the new character
   * @throws {AssemblerError} IMPORT_* / PNG_* for a file that is not a readable card (the message names the field or shape)
   */
  async import(bytes: Uint8Array, fileName?: string): Promise<LibraryCharacter> {
    const card = importCharacterCard(bytes, { maxFileBytes: MAX_CARD_FILE_BYTES });
    const avatar = avatarOf(bytes, card);
    const taken = new Set(await this.#trees.list());
    const id = deriveId(card.character.name, taken);
    const meta: z.output<typeof MetaSchema> = { format: card.format, notes: [...card.notes], importedAt: new Date().toISOString(), ...(fileName ? { fileName: fileName.slice(0, 256) } : {}) };
    await this.#trees.create(id, {
      [CARD_FILE]: JSON.stringify(card.source),
      [META_FILE]: JSON.stringify(meta),
      ...(avatar ? { [AVATAR_FILE]: JSON.stringify(avatar) } : {}),
    });
    return this.get(id);
  }

  /**
   * Imports a card file unless the library already has the very same card (same `card.json`), as
   * when `chat --card FILE` is run again with one file.
   * @param bytes - the file
   * @param fileName - its name
   * @returns the character, new or already there
   * @throws {AssemblerError} as {@link CharacterLibrary.import}
   */
  async importOnce(bytes: Uint8Array, fileName?: string): Promise<LibraryCharacter> {
    const card = importCharacterCard(bytes, { maxFileBytes: MAX_CARD_FILE_BYTES });
    const text = JSON.stringify(card.source);
    for (const id of await this.#trees.list()) {
      const snapshot = await this.#trees.read(id).catch(() => undefined);
      if (snapshot?.files[CARD_FILE] === text) return this.get(id);
    }
    return this.import(bytes, fileName);
  }

  /**
   * Every character, in name order (a hand-broken one is listed under `broken`).
   * @returns summaries
   */
  async list(): Promise<{ characters: CharacterSummary[]; broken: { id: string; message: string }[] }> {
    const { items, broken } = await listItems(this.#trees, (id) => this.get(id));
    const characters = items.map(summaryOf).sort((a, b) => a.name.localeCompare(b.name));
    return { characters, broken };
  }

  /**
   * One character with its parsed card.
   * @param id - the character id
   * @returns the character
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_INVALID (a stored card a hand edit broke)
   */
  async get(id: string): Promise<LibraryCharacter> {
    const snapshot = await readItem(this.#trees, id, 'character');
    const meta = itemJson(snapshot, META_FILE, MetaSchema, CHARACTERS_FOLDER);
    const source = itemJson(snapshot, CARD_FILE, z.unknown(), CHARACTERS_FOLDER);
    let card: CharacterCardImport;
    try {
      card = importCharacterCard(source as object);
    } catch (error) {
      throw new LibraryError('LIBRARY_INVALID', `${itemFilePath(CHARACTERS_FOLDER, id, CARD_FILE)} is no longer a valid card: ${(error as Error).message}`);
    }
    const character = card.character;
    return {
      id,
      revision: snapshot.revision,
      name: character.name,
      displayName: character.displayName,
      tags: character.tags,
      creator: character.creator,
      hasAvatar: snapshot.files[AVATAR_FILE] !== undefined,
      format: meta.format,
      spec: card.spec,
      greetings: 1 + character.alternateGreetings.length,
      card,
      notes: meta.notes,
      importedAt: meta.importedAt,
    };
  }

  /**
   * Changes card fields, in `data` and in the card's top-level V1 copies (validated as a card
   * again; unknown fields stay).
   * @param id - the character id
   * @param baseRevision - the revision the edit was based on
   * @param edit - the fields to change
   * @returns the character after the edit
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_REVISION_CONFLICT, LIBRARY_INVALID
   */
  async update(id: string, baseRevision: number, edit: CharacterEdit): Promise<LibraryCharacter> {
    const current = await this.get(id);
    const next = applyCardEdit(current.card.source, edit);
    try {
      importCharacterCard(next);
    } catch (error) {
      throw new LibraryError('LIBRARY_INVALID', `The edit makes an invalid card: ${(error as Error).message}`);
    }
    await commitItem(this.#trees, id, baseRevision, { [CARD_FILE]: JSON.stringify(next) });
    return this.get(id);
  }

  /**
   * Deletes a character (its chats keep their session logs).
   * @param id - the character id
   * @returns whether it existed
   */
  async delete(id: string): Promise<boolean> {
    await readItem(this.#trees, id, 'character');
    return this.#trees.delete(id);
  }

  /**
   * The character's picture.
   * @param id - the character id
   * @returns the image, or `undefined` when the card came without one
   */
  async avatar(id: string): Promise<{ mime: string; bytes: Uint8Array } | undefined> {
    const snapshot = await readItem(this.#trees, id, 'character');
    if (snapshot.files[AVATAR_FILE] === undefined) return undefined;
    const avatar = itemJson(snapshot, AVATAR_FILE, AvatarSchema, CHARACTERS_FOLDER);
    return { mime: avatar.mime, bytes: new Uint8Array(Buffer.from(avatar.base64, 'base64')) };
  }

  /**
   * The card as V3 JSON (every field kept).
   * @param id - the character id
   * @returns the V3 card
   */
  async exportJson(id: string): Promise<CardV3> {
    return toCardV3((await this.get(id)).card.source);
  }

  /**
   * The card as a V3 PNG (`ccv3` plus a `chara` V2 backfill) on its own picture, or on a plain
   * square when it has none (or its picture is not a PNG).
   * @param id - the character id
   * @returns PNG bytes
   */
  async exportPng(id: string): Promise<Uint8Array> {
    const character = await this.get(id);
    const avatar = await this.avatar(id);
    const picture = avatar && isPng(avatar.bytes) ? avatar.bytes : placeholderPng(character.name);
    return embedCharacterCard(picture, toCardV3(character.card.source));
  }
}

function summaryOf(character: LibraryCharacter): CharacterSummary {
  const { card: _card, notes: _notes, importedAt: _at, ...summary } = character;
  return summary;
}

function avatarOf(bytes: Uint8Array, card: CharacterCardImport): AvatarImage | undefined {
  const picture = card.format === 'png' ? stripCardChunks(bytes) : card.icon;
  if (picture === undefined) return undefined;
  const mime = sniffImage(picture);
  return mime === undefined ? undefined : { mime, base64: Buffer.from(picture).toString('base64') };
}
