import { parseManifest, type StoryManifest } from './manifest.js';

// Manifest texts seen lately and what they parse to: a turn reads the same manifest in preActor
// and postReview (and the next turn usually too), so it is validated once, not per hook.
const MEMO_ENTRIES = 32;
const parsed = new Map<string, StoryManifest>();

/**
 * {@link parseManifest} with a small memo by text (the turn's hooks only read the result).
 * @param text - the `manifest.json` content
 * @returns the validated manifest (the same object for the same text while it is remembered)
 * @throws {StoryError} STORY_MANIFEST_INVALID like {@link parseManifest} (failures are not remembered)
 */
export function parseManifestForTurn(text: string): StoryManifest {
  const known = parsed.get(text);
  if (known) return known;
  const manifest = parseManifest(text);
  if (parsed.size >= MEMO_ENTRIES) parsed.delete(parsed.keys().next().value as string);
  parsed.set(text, manifest);
  return manifest;
}
