import * as z from 'zod';

const text = z.string().max(2_000_000);
const optionalText = text.optional().default('');
const textList = z.array(text).max(10_000).optional().default([]);

/** Schema of a V2 card's `data` (lenient on missing strings, keeps unknown fields). */
export const CardDataV2Schema = z.looseObject({
  name: z.string().min(1).max(1024),
  description: optionalText,
  personality: optionalText,
  scenario: optionalText,
  first_mes: optionalText,
  mes_example: optionalText,
  creator_notes: optionalText,
  system_prompt: optionalText,
  post_history_instructions: optionalText,
  alternate_greetings: textList,
  character_book: z.looseObject({ entries: z.array(z.looseObject({})) }).optional(),
  tags: textList,
  creator: optionalText,
  character_version: optionalText,
  extensions: z.record(z.string(), z.unknown()).optional().default({}),
});

/** Schema of a V3 card's `data`: V2 plus `nickname`, `group_only_greetings`, `assets`, … */
export const CardDataV3Schema = CardDataV2Schema.extend({
  nickname: z.string().max(1024).optional(),
  group_only_greetings: textList,
  assets: z.array(z.looseObject({ type: z.string(), uri: z.string(), name: z.string(), ext: z.string() })).optional(),
  creator_notes_multilingual: z.record(z.string(), z.string()).optional(),
  source: z.array(z.string()).optional(),
  creation_date: z.number().optional(),
  modification_date: z.number().optional(),
});

/** Schema of a whole V2 card. */
export const CardV2Schema = z.looseObject({ spec: z.literal('chara_card_v2'), spec_version: z.string(), data: CardDataV2Schema });
/** Schema of a whole V3 card (any `3.x` version is accepted, as the spec asks). */
export const CardV3Schema = z.looseObject({ spec: z.literal('chara_card_v3'), spec_version: z.string().regex(/^3(\.\d+)*$/), data: CardDataV3Schema });

/** A parsed V2 card. */
export type CardV2 = z.output<typeof CardV2Schema>;
/** A parsed V3 card. */
export type CardV3 = z.output<typeof CardV3Schema>;
