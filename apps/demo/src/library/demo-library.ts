import { join } from 'node:path';
import { FsTreeStore, nodeStorageFs } from '@troupe/storage-fs';
import { CHARACTERS_FOLDER, CharacterLibrary } from './character-library.js';
import { CHATS_FOLDER, ChatLibrary } from './chat-library.js';
import type { ChatSetup } from './chat-setup.js';
import { LibraryError } from './library-error.js';
import { LOREBOOKS_FOLDER, LorebookLibrary } from './lorebook-library.js';
import { PERSONAS_FOLDER, PersonaLibrary, PREFERENCES_FOLDER } from './persona-library.js';
import { DEFAULT_PRESET_ID, PRESETS_FOLDER, PresetLibrary } from './preset-library.js';

/** The demo's libraries, each a crash-safe tree store of its own under `<data>/library/`. */
export interface DemoLibrary {
  readonly characters: CharacterLibrary;
  readonly presets: PresetLibrary;
  readonly personas: PersonaLibrary;
  readonly chats: ChatLibrary;
  /** Standalone world-info books, attached to chats (`session-lorebooks.ts`). */
  readonly lorebooks: LorebookLibrary;
  /**
   * Everything a chat's turn is played with.
   * @throws {LibraryError} LIBRARY_NOT_FOUND naming what is gone (e.g. a deleted character)
   */
  setup(chatId: string): Promise<ChatSetup>;
}

/**
 * Opens the libraries under `<dataDir>/library/` (`characters/`, `presets/`, `personas/`,
 * `chats/`, `preferences/`, `lorebooks/`), next to the story workspaces and sessions.
 * @param dataDir - the demo's data directory
 * @returns the libraries
 */
export function openDemoLibrary(dataDir: string): DemoLibrary {
  const fs = nodeStorageFs;
  const store = (name: string) => new FsTreeStore({ dir: join(dataDir, 'library', name), fs });
  // The folder names are the libraries' own, which their error messages name.
  const characters = new CharacterLibrary(store(CHARACTERS_FOLDER));
  const presets = new PresetLibrary(store(PRESETS_FOLDER));
  const personas = new PersonaLibrary(store(PERSONAS_FOLDER), store(PREFERENCES_FOLDER));
  const chats = new ChatLibrary(store(CHATS_FOLDER));
  const lorebooks = new LorebookLibrary(store(LOREBOOKS_FOLDER));
  return {
    characters,
    presets,
    personas,
    chats,
    lorebooks,
    async setup(chatId) {
      const chat = await chats.get(chatId);
      const gone = (what: string, id: string) => (error: unknown) => {
        if (LibraryError.isInstance(error) && error.code === 'LIBRARY_NOT_FOUND') {
          throw new LibraryError('LIBRARY_NOT_FOUND', `Chat "${chatId}" uses ${what} "${id}", which no longer exists`);
        }
        throw error;
      };
      // A deleted preset or persona falls back to the default one, as SillyTavern plays on with
      // its default when the chosen one is gone (choosing one again repairs the chat record); a
      // deleted character does not: playing someone else would be a different chat.
      const orDefault =
        <T>(fallback: () => Promise<T>) =>
        (error: unknown): Promise<T> => {
          if (LibraryError.isInstance(error) && error.code === 'LIBRARY_NOT_FOUND') return fallback();
          throw error;
        };
      const [character, preset, persona] = await Promise.all([
        characters.get(chat.characterId).catch(gone('the character', chat.characterId)),
        presets.get(chat.presetId).catch(orDefault(() => presets.get(DEFAULT_PRESET_ID))),
        personas.get(chat.personaId).catch(orDefault(async () => personas.get(await personas.defaultId()))),
      ]);
      return { chat, character, preset, persona };
    },
  };
}
