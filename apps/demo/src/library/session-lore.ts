import type { EventKey, SessionEvent } from '@troupe/kernel';
import { type Lorebook, type TurnBooks, type WorldInfoScanData, importCardLorebook } from '@troupe/plugin-lorebook';
import { type ChatSetup, chatGreeting, chatNames } from './chat-setup.js';
import type { DemoLibrary } from './demo-library.js';
import { LibraryError } from './library-error.js';
import { substituteNames } from './name-macros.js';
import { attachedLorebooks } from './session-lorebooks.js';

/** The book name of a character's embedded `character_book` (a colon: no library id has one). */
export function characterBookName(characterId: string): string {
  return `character:${characterId}`;
}

/**
 * The card's and persona's fields that world-info entries may also match (SillyTavern's
 * `WIGlobalScanData`, built from `getCharacterCardFields`: trimmed, names put in).
 * @param setup - the chat
 * @returns the fields
 */
export function chatScanData(setup: ChatSetup): WorldInfoScanData {
  const names = chatNames(setup);
  const character = setup.character.card.character;
  const field = (text: string | undefined) => substituteNames((text ?? '').trim(), names);
  return {
    personaDescription: field(setup.persona.description),
    characterDescription: field(character.description),
    characterPersonality: field(character.personality),
    characterDepthPrompt: field(character.depthPrompt?.prompt),
    scenario: field(character.scenario),
    creatorNotes: field(character.creatorNotes),
  };
}

/**
 * The world info of one session's turn: for a library chat, its character's embedded book (as in
 * SillyTavern, where the card's book is the character's lore), the chat's names and its greeting
 * (scanned as the chat's first message) and its card and persona fields (for entries that match
 * them); plus every
 * library book attached to the session. A deleted book is left out rather than failing the turn.
 * @param library - the demo's libraries
 * @param sessionId - the session (a chat id for library chats)
 * @param findLatest - the turn's or the log's `findLatest`
 * @returns the books, in scan order, and the names
 */
export async function sessionLore(library: DemoLibrary, sessionId: string, findLatest: (key: EventKey) => Promise<SessionEvent | undefined>): Promise<TurnBooks> {
  const books: Lorebook[] = [];
  let names: TurnBooks['names'];
  let greeting = '';
  let scanData: WorldInfoScanData | undefined;
  const chat = await library.chats.find(sessionId);
  if (chat) {
    const setup = await library.setup(chat.id);
    names = chatNames(setup);
    greeting = chatGreeting(setup);
    scanData = chatScanData(setup);
    const own = importCardLorebook(setup.character.card.source, { name: characterBookName(setup.character.id) });
    if (own) books.push(own.book);
  }
  for (const id of await attachedLorebooks(findLatest)) {
    try {
      books.push((await library.lorebooks.get(id)).book);
    } catch (error) {
      if (!LibraryError.isInstance(error) || error.code !== 'LIBRARY_NOT_FOUND') throw error;
    }
  }
  return { books, ...(names === undefined ? {} : { names }), ...(greeting === '' ? {} : { greeting }), ...(scanData === undefined ? {} : { scanData }) };
}
