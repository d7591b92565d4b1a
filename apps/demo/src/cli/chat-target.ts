import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Demo } from '../compose.js';
import type { LibraryCharacter } from '../library/character-library.js';
import { MAX_CARD_FILE_BYTES } from '../library/character-library.js';
import type { Chat } from '../library/chat-library.js';

/** How a command names the character to play. */
export interface CharacterChoice {
  /** A card file (`.png`, `.json`, `.charx`): imported into the library once, then reused. */
  readonly card?: string;
  /** A library character id. */
  readonly character?: string;
}

/** A choice the CLI cannot act on (`code` is stable): `DEMO_INVALID_OPTION`. */
export function invalidOption(message: string): Error {
  return Object.assign(new Error(message), { code: 'DEMO_INVALID_OPTION' });
}

/**
 * The library character a command plays: from `--card FILE` (imported once) or `--character ID`.
 * @param demo - the composed demo
 * @param choice - the options
 * @returns the character, or `undefined` when neither option was given
 * @throws DEMO_INVALID_OPTION (both given), IMPORT_TOO_LARGE, every card import code, LIBRARY_NOT_FOUND
 */
export async function chosenCharacter(demo: Demo, choice: CharacterChoice): Promise<LibraryCharacter | undefined> {
  if (choice.card && choice.character) throw invalidOption('Give either --card FILE or --character ID, not both');
  if (choice.character) return demo.library.characters.get(choice.character);
  if (!choice.card) return undefined;
  const info = await stat(choice.card);
  if (info.size > MAX_CARD_FILE_BYTES) throw Object.assign(new Error(`${choice.card} is ${info.size} bytes; the limit is ${MAX_CARD_FILE_BYTES}`), { code: 'IMPORT_TOO_LARGE' });
  const bytes = await readFile(choice.card);
  return demo.library.characters.importOnce(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), basename(choice.card));
}

/** Options of {@link chatFor}. */
export interface ChatChoice extends CharacterChoice {
  /** The session / chat id; default a fresh chat. */
  readonly session?: string;
  readonly preset?: string;
  readonly persona?: string;
}

/**
 * The library chat a command plays in: an existing chat (its character must match when one is
 * chosen), or a new chat with the chosen character under the given session id.
 * @param demo - the composed demo
 * @param choice - session, character, preset, persona
 * @returns the chat, or `undefined` when no character was chosen and the session is not a chat
 * @throws DEMO_INVALID_OPTION (the session is a chat with another character), LIBRARY_NOT_FOUND
 */
export async function chatFor(demo: Demo, choice: ChatChoice): Promise<Chat | undefined> {
  const existing = choice.session ? await demo.library.chats.find(choice.session) : undefined;
  const character = await chosenCharacter(demo, choice);
  if (existing) {
    if (character && character.id !== existing.characterId) {
      throw invalidOption(`Session "${existing.id}" is a chat with "${existing.characterId}", not "${character.id}"; use another --session`);
    }
    const change = { ...(choice.preset ? { presetId: choice.preset } : {}), ...(choice.persona ? { personaId: choice.persona } : {}) };
    if (change.presetId) await demo.library.presets.get(change.presetId);
    if (change.personaId) await demo.library.personas.get(change.personaId);
    return Object.keys(change).length > 0 ? demo.library.chats.update(existing.id, change) : existing;
  }
  if (!character) return undefined;
  if (choice.session && (await demo.storage.sessions.read(choice.session)).length > 0) {
    throw invalidOption(`Session "${choice.session}" already has turns with the example character; use another --session for ${character.name}`);
  }
  if (choice.preset) await demo.library.presets.get(choice.preset);
  const personaId = choice.persona ?? (await demo.library.personas.defaultId());
  await demo.library.personas.get(personaId);
  return demo.library.chats.create(
    { title: character.name, characterId: character.id, presetId: choice.preset ?? 'default', personaId, storyId: null, greetingIndex: 0, useCardPrompts: true },
    ...(choice.session ? [choice.session] : []),
  );
}
