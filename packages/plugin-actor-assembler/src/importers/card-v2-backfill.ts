import { V1_FIELDS } from './card-leniency.js';
import type { CardV3 } from './card-schema.js';

/**
 * The `chara` chunk written beside `ccv3`: the card in the V2 shape for tools that know only
 * `chara`. Like SillyTavern's, it keeps every top-level field of the card (`create_date`, `chat`,
 * `talkativeness`, `fav`, `creatorcomment`, unknown ones) and writes the V1 fields (`name`,
 * `description`, …) from `data`, so a V1 reader gets the current text even where the card's own
 * top-level copies are missing or older than `data`.
 * @param card - a V3 card
 * @returns the V2 backfill
 */
export function toCardV2Backfill(card: CardV3): Record<string, unknown> {
  const { spec: _spec, spec_version: _version, data, ...topLevel } = card;
  const v1: Record<string, string> = {};
  for (const field of V1_FIELDS) {
    const value = (data as Record<string, unknown>)[field];
    if (typeof value === 'string') v1[field] = value;
  }
  return { ...topLevel, ...v1, spec: 'chara_card_v2', spec_version: '2.0', data };
}
