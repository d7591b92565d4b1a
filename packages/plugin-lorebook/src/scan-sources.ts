import * as z from 'zod';

/**
 * The card and persona fields an entry may also be matched against, in SillyTavern's order (its
 * `WIGlobalScanData`, which `WorldInfoBuffer.get` appends after the chat): persona description,
 * character description, personality, depth prompt (character's note), scenario, creator notes.
 */
export const SCAN_SOURCES = Object.freeze(['personaDescription', 'characterDescription', 'characterPersonality', 'characterDepthPrompt', 'scenario', 'creatorNotes'] as const);

/** One of {@link SCAN_SOURCES}. */
export type WorldInfoScanSource = (typeof SCAN_SOURCES)[number];

/** The texts of the {@link SCAN_SOURCES} for one chat (ST `WIGlobalScanData`); absent = empty. */
export type WorldInfoScanData = { readonly [Source in WorldInfoScanSource]?: string };

/** Schema of {@link WorldInfoScanData} (a card field may be long, but not without bound). */
export const ScanDataSchema = z
  .object(Object.fromEntries(SCAN_SOURCES.map((source) => [source, z.string().max(2_000_000).optional()])) as Record<WorldInfoScanSource, z.ZodOptional<z.ZodString>>)
  .strict();

/** ST's per-entry flag for each source, in a world-info file (`matchPersonaDescription`, …). */
export const SCAN_SOURCE_FLAGS: Readonly<Record<WorldInfoScanSource, string>> = Object.freeze({
  personaDescription: 'matchPersonaDescription',
  characterDescription: 'matchCharacterDescription',
  characterPersonality: 'matchCharacterPersonality',
  characterDepthPrompt: 'matchCharacterDepthPrompt',
  scenario: 'matchScenario',
  creatorNotes: 'matchCreatorNotes',
});

/** The same flags in a card's `character_book` entry `extensions` (`match_persona_description`, …). */
export const SCAN_SOURCE_CARD_FLAGS: Readonly<Record<WorldInfoScanSource, string>> = Object.freeze({
  personaDescription: 'match_persona_description',
  characterDescription: 'match_character_description',
  characterPersonality: 'match_character_personality',
  characterDepthPrompt: 'match_character_depth_prompt',
  scenario: 'match_scenario',
  creatorNotes: 'match_creator_notes',
});

/**
 * The sources of a list in ST's order, without repeats (an entry built by hand may list them in
 * any order; the scan text always follows ST's).
 * @param sources - an entry's sources
 * @returns them in {@link SCAN_SOURCES} order
 */
export function inScanOrder(sources: readonly WorldInfoScanSource[] | undefined): readonly WorldInfoScanSource[] {
  if (sources === undefined || sources.length === 0) return [];
  return SCAN_SOURCES.filter((source) => sources.includes(source));
}
