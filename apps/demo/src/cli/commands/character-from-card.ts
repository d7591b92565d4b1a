import { defineErrorClass } from '@troupe/kernel';
import type { ImportedCharacter } from '@troupe/plugin-actor-assembler';
import { STORY_ITEM_ID_PATTERN } from '@troupe/plugin-story';
import { deriveId } from '../../library/library-ids.js';
import { substituteNames } from '../../library/name-macros.js';

/**
 * A card that cannot become a workspace character as given (`code` is stable).
 * - `DEMO_INVALID_CARD_ID` — the `--character-id` given is not a valid id.
 */
export class CardImportError extends defineErrorClass<'DEMO_INVALID_CARD_ID'>('CardImportError') {
  /** @param message - what to do instead */
  constructor(message: string) {
    super('DEMO_INVALID_CARD_ID', message);
  }
}

/** A character ready for `StoryWorkspaces.addCharacter`. */
export interface CardCharacter {
  readonly id: string;
  readonly name: string;
  readonly persona: string;
  readonly knowledge: string;
}

/** Options of {@link characterFromCard}. */
export interface CardCharacterOptions {
  /** The id to use; default derived from the name (any script: see `deriveId`). */
  readonly id?: string;
  /** Ids the workspace already has (a derived id avoids them). */
  readonly taken?: ReadonlySet<string>;
  /** The player's name for `{{user}}` (default `User`). */
  readonly user?: string;
}

/**
 * Maps an imported card to a workspace character: description, personality and scenario become
 * the persona with `{{char}}` / `{{user}}` put in (the story's character workers read it as it
 * is); knowledge starts empty (the card's public text is not the character's private knowledge).
 * @param character - the imported card character
 * @param options - id, ids in use, the player's name
 * @returns the character with its id, persona and empty knowledge
 * @throws {CardImportError} DEMO_INVALID_CARD_ID when the given id is invalid
 */
export function characterFromCard(character: ImportedCharacter, options: CardCharacterOptions = {}): CardCharacter {
  const id = options.id ?? deriveId(character.name, options.taken);
  if (!STORY_ITEM_ID_PATTERN.test(id)) {
    throw new CardImportError(`Invalid --character-id "${id}": use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit`);
  }
  const names = { char: character.displayName, user: options.user ?? 'User' };
  const persona = [
    `# ${character.name}`,
    character.description && `\n${character.description}`,
    character.personality && `\n## Personality\n\n${character.personality}`,
    character.scenario && `\n## Scenario\n\n${character.scenario}`,
  ]
    .filter(Boolean)
    .join('\n');
  return { id, name: character.name, persona: substituteNames(`${persona}\n`, names), knowledge: '' };
}

/**
 * What of a card a story character does not carry, in sentences for the player: the story's
 * workers read persona.md only, so the card's lorebook, its own prompts, greetings and example
 * messages stay out. A card that keeps its whole character in its lorebook (an empty description,
 * as many Chinese cards do) would otherwise become a story character with nothing but a name.
 * @param character - the imported card character
 * @returns one note per part left out (empty when the card is all in persona.md)
 */
export function leftOutOfStoryCharacter(character: ImportedCharacter): string[] {
  const notes: string[] = [];
  const entries = character.characterBook?.['entries'];
  const bookSize = Array.isArray(entries) ? entries.length : entries && typeof entries === 'object' ? Object.keys(entries).length : 0;
  if (character.description.trim() === '' && character.personality.trim() === '' && character.scenario.trim() === '') {
    notes.push(
      `the card has no description, personality or scenario: persona.md holds only the name${bookSize > 0 ? ` (this card keeps its character in its lorebook)` : ''}. Write the persona into persona.md, or play the card as a library chat (chat --card FILE)`,
    );
  }
  if (bookSize > 0) notes.push(`the card's lorebook (${bookSize} entries) is not part of a story character; a library chat with the card uses it`);
  const prompts = [character.systemPrompt.trim() && 'system_prompt', character.postHistoryInstructions.trim() && 'post_history_instructions'].filter(Boolean);
  if (prompts.length > 0) notes.push(`the card's own prompts (${prompts.join(', ')}) are not used by the story pipeline`);
  const greetings = [character.firstMessage, ...character.alternateGreetings].filter((text) => text.trim() !== '').length;
  if (greetings > 0 || character.exampleMessages.trim() !== '') notes.push('its greetings and example messages are not part of persona.md');
  return notes;
}

