import type { ImportedCharacter } from '@troupe/plugin-actor-assembler';
import { STORY_ITEM_ID_PATTERN } from '@troupe/plugin-story';

/**
 * A card that cannot become a workspace character as given (`code` is stable).
 * - `DEMO_INVALID_CARD_ID` — no valid character id from `--character-id` or the card's name.
 */
export class CardImportError extends Error {
  /** Stable code. */
  readonly code = 'DEMO_INVALID_CARD_ID';

  /** @param message - what to do instead */
  constructor(message: string) {
    super(message);
    this.name = 'CardImportError';
  }
}

/** A character ready for `StoryWorkspaces.addCharacter`. */
export interface CardCharacter {
  readonly id: string;
  readonly name: string;
  readonly persona: string;
  readonly knowledge: string;
}

/**
 * Maps an imported card to a workspace character: description, personality and scenario become
 * the persona; knowledge starts empty (the card's public text is not the character's private
 * knowledge).
 * @param character - the imported card character
 * @param id - the id to use; default derived from the name (ASCII letters and digits)
 * @returns the character with its id, persona and empty knowledge
 * @throws {CardImportError} DEMO_INVALID_CARD_ID when the given id is invalid or none can be derived
 */
export function characterFromCard(character: ImportedCharacter, id?: string): CardCharacter {
  const derived = id ?? character.name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  if (!STORY_ITEM_ID_PATTERN.test(derived)) {
    throw new CardImportError(
      id === undefined
        ? `Cannot derive a character id from the card name "${character.name}"; pass --character-id (1–64 of a-z, 0-9, "_" and "-")`
        : `Invalid --character-id "${id}": use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit`,
    );
  }
  const persona = [
    `# ${character.name}`,
    character.description && `\n${character.description}`,
    character.personality && `\n## Personality\n\n${character.personality}`,
    character.scenario && `\n## Scenario\n\n${character.scenario}`,
  ]
    .filter(Boolean)
    .join('\n');
  return { id: derived, name: character.name, persona: `${persona}\n`, knowledge: '' };
}
