import { randomBytes } from 'node:crypto';
import type { TreeStore } from '@troupe/kernel';
import * as z from 'zod';
import { LibraryError } from './library-error.js';
import { commitItem, itemJson, listItems, readItem } from './tree-items.js';

/** The chats' folder under `<data>/library/`. */
export const CHATS_FOLDER = 'chats';
const CHAT_FILE = 'chat.json';

/** What a chat is made of; its id is also its session id. */
export const ChatRecordSchema = z.object({
  title: z.string().max(256),
  characterId: z.string(),
  presetId: z.string(),
  personaId: z.string(),
  storyId: z.string().nullable(),
  /** Which greeting the first message shows: 0 = `first_mes`, n = `alternate_greetings[n-1]`. */
  greetingIndex: z.number().int().min(0),
  /** Whether the card's `system_prompt` / `post_history_instructions` replace the preset's (V2 spec: yes unless the player opts out). */
  useCardPrompts: z.boolean(),
  createdAt: z.string(),
});

/** A stored chat. */
export type ChatRecord = z.output<typeof ChatRecordSchema>;

/** A chat with its id and revision. */
export interface Chat extends ChatRecord {
  readonly id: string;
  readonly revision: number;
}

/** The fields a chat's settings change. */
export type ChatChange = Partial<Pick<ChatRecord, 'title' | 'presetId' | 'personaId' | 'storyId' | 'greetingIndex' | 'useCardPrompts'>>;

/** The chat list: which character, preset, persona and story each chat (session) uses. */
export class ChatLibrary {
  readonly #trees: TreeStore;

  /** @param trees - where chat records are kept (the turns themselves are in the session log) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /**
   * Creates a chat (its id is also its session id).
   * @param record - the chat
   * @param id - the id (default: a fresh `chat-…`); an existing id fails with TREE_EXISTS
   * @returns the chat
   */
  async create(record: Omit<ChatRecord, 'createdAt'>, id = `chat-${randomBytes(6).toString('hex')}`): Promise<Chat> {
    await this.#trees.create(id, { [CHAT_FILE]: JSON.stringify({ ...record, createdAt: new Date().toISOString() }) });
    return this.get(id);
  }

  /**
   * One chat.
   * @param id - the chat (session) id
   * @returns the chat
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_INVALID
   */
  async get(id: string): Promise<Chat> {
    const snapshot = await readItem(this.#trees, id, 'chat');
    return { id, revision: snapshot.revision, ...itemJson(snapshot, CHAT_FILE, ChatRecordSchema, CHATS_FOLDER) };
  }

  /**
   * The chat of a session, or `undefined` for a session that is not a library chat (the demo's
   * plain sessions, which play the example character).
   * @param id - the session id
   * @returns the chat or undefined
   */
  async find(id: string): Promise<Chat | undefined> {
    try {
      return await this.get(id);
    } catch (error) {
      if (LibraryError.isInstance(error) && error.code === 'LIBRARY_NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * Every chat, newest first.
   * @returns chats
   */
  async list(): Promise<Chat[]> {
    const { items } = await listItems(this.#trees, (id) => this.get(id));
    return items.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /**
   * Changes a chat's settings.
   * @param id - the chat id
   * @param change - the fields to change
   * @param baseRevision - the revision the change was based on (default: the current one)
   * @returns the chat after the change
   * @throws {LibraryError} LIBRARY_NOT_FOUND, LIBRARY_REVISION_CONFLICT
   */
  async update(id: string, change: ChatChange, baseRevision?: number): Promise<Chat> {
    const current = await this.get(id);
    const { id: _id, revision, ...record } = current;
    await commitItem(this.#trees, id, baseRevision ?? revision, { [CHAT_FILE]: JSON.stringify({ ...record, ...change }) });
    return this.get(id);
  }

  /**
   * Deletes a chat record (the session log stays, so nothing played is lost).
   * @param id - the chat id
   * @returns true
   */
  async delete(id: string): Promise<boolean> {
    await readItem(this.#trees, id, 'chat');
    return this.#trees.delete(id);
  }
}
