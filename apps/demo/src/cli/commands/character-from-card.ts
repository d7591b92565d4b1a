import type { ImportedCharacter } from '@troupe/plugin-actor-assembler';

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
 * @throws Error when no valid id can be derived and none is given
 */
export function characterFromCard(character: ImportedCharacter, id?: string): CardCharacter {
  const derived = id ?? character.name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(derived)) {
    throw new Error(`Cannot derive an id from the card name "${character.name}"; pass --character-id`);
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
