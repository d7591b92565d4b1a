import type { EventKey, SessionEvent } from '@troupe/kernel';
import { type Lorebook, type TurnBooks, importCardLorebook } from '@troupe/plugin-lorebook';
import { chatGreeting, chatNames } from './chat-setup.js';
import type { DemoLibrary } from './demo-library.js';
import { LibraryError } from './library-error.js';
import { attachedLorebooks } from './session-lorebooks.js';

/** The book name of a character's embedded `character_book` (a colon: no library id has one). */
export function characterBookName(characterId: string): string {
  return `character:${characterId}`;
}

/**
 * The world info of one session's turn: for a library chat, its character's embedded book (as in
 * SillyTavern, where the card's book is the character's lore), the chat's names and its greeting
 * (scanned as the chat's first message); plus every
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
  const chat = await library.chats.find(sessionId);
  if (chat) {
    const setup = await library.setup(chat.id);
    names = chatNames(setup);
    greeting = chatGreeting(setup);
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
  return { books, ...(names === undefined ? {} : { names }), ...(greeting === '' ? {} : { greeting }) };
}
