import type { CardV2, CardV3 } from '@troupe/plugin-actor-assembler';
import type { CharacterEdit } from './character-library.js';

// The card fields SillyTavern also keeps at the top level (charaFormatData writes them together
// with `data`), by the name they have there: what a V1 reader (and SillyTavern's own list) reads.
const TOP_LEVEL_COPIES: Readonly<Partial<Record<keyof CharacterEdit, string>>> = {
  name: 'name',
  description: 'description',
  personality: 'personality',
  scenario: 'scenario',
  first_mes: 'first_mes',
  mes_example: 'mes_example',
  creator_notes: 'creatorcomment',
  tags: 'tags',
};

/**
 * A card with an edit applied to `data` and to the card's top-level copies of the edited fields,
 * so an export never says one thing in `data` and another at the top level. Only copies the card
 * already has are changed: a card that came without them (a plain V3 card) keeps its shape.
 * @param card - the stored card
 * @param edit - the changed fields (names as in `data`)
 * @returns the edited card (unknown fields kept)
 */
export function applyCardEdit(card: CardV2 | CardV3, edit: CharacterEdit): CardV2 | CardV3 {
  const next: Record<string, unknown> = { ...card, data: { ...card.data, ...edit } };
  for (const [field, value] of Object.entries(edit)) {
    const copy = TOP_LEVEL_COPIES[field as keyof CharacterEdit];
    if (copy !== undefined && value !== undefined && Object.hasOwn(card, copy)) next[copy] = value;
  }
  return next as unknown as CardV2 | CardV3;
}
