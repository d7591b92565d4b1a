import { renderCharacterDefinition } from '@troupe/plugin-actor-assembler';
import * as z from 'zod';

/**
 * A character card's fields as the service accepts them: the card's `data` object can be sent as
 * it is (other fields — greetings, lorebook, extensions — are ignored; `null` reads as empty).
 */
export const CardCharacterSchema = z.looseObject({
  name: z.string().min(1).max(200),
  nickname: z.string().max(200).nullish(),
  description: z.string().max(50_000).nullish(),
  personality: z.string().max(50_000).nullish(),
  scenario: z.string().max(50_000).nullish(),
});

/**
 * The base prompt for a card: its full definition — description, personality and scenario, names
 * substituted — and the name a compiled prompt must keep (the nickname when set).
 * @param character - the card's fields
 * @param user - what `{{user}}` becomes (default `User`)
 * @returns the base prompt's content and character name
 */
export function basePromptFromCard(character: z.output<typeof CardCharacterSchema>, user?: string): { content: string; characterName: string } {
  const characterName = character.nickname?.trim() || character.name;
  const content = renderCharacterDefinition(
    { description: character.description ?? '', personality: character.personality ?? '', scenario: character.scenario ?? '' },
    { char: characterName, ...(user !== undefined ? { user } : {}) },
  );
  return { content, characterName };
}
