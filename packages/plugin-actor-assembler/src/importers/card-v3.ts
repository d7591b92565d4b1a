import type { CardV2, CardV3 } from './card-schema.js';

/**
 * The same card as V3 (for export): a V2 card's `data` gains the V3 fields with their empty
 * values; every other field, known or not, is kept. A V3 card is returned as it is.
 * @param card - a validated card (e.g. `import.source`)
 * @returns a V3 card
 */
export function toCardV3(card: CardV2 | CardV3): CardV3 {
  if (card.spec === 'chara_card_v3') return card;
  const { spec: _spec, spec_version: _version, data, ...rest } = card;
  return {
    ...rest,
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: { group_only_greetings: [], ...data },
  } as CardV3;
}
