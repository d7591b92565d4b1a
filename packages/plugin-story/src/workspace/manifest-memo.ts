import { parseManifest, type StoryManifest, StoryManifestSchema } from './manifest.js';

// Manifest texts seen lately and what they parse to: a turn reads the same manifest in preActor
// and postReview (and the next turn usually too), so it is validated once, not per hook.
const MEMO_ENTRIES = 32;
const byText = new Map<string, StoryManifest>();
// The same manifests by their content apart from the store-owned `revision`: every settled turn
// stamps a new revision into the text, and the next turn's manifest is otherwise the same.
const byContent = new Map<string, StoryManifest>();

/**
 * {@link parseManifest} with a small memo (the turn's hooks only read the result): the same text
 * gives the same object, and a text that differs from a remembered one only in `revision` is not
 * validated again (its revision is).
 * @param text - the `manifest.json` content
 * @returns the validated manifest (the same object for the same text while it is remembered)
 * @throws {StoryError} STORY_MANIFEST_INVALID like {@link parseManifest} (failures are not remembered)
 */
export function parseManifestForTurn(text: string): StoryManifest {
  const known = byText.get(text);
  if (known) return known;
  const content = contentKey(text);
  const same = content === undefined ? undefined : byContent.get(content.key);
  const revision = content && StoryManifestSchema.shape.revision.safeParse(content.revision);
  // Only a valid revision reuses the rest; anything else takes the full parse (and its error).
  const manifest = same && revision?.success ? withRevision(same, revision.data) : parseManifest(text);
  remember(byText, text, manifest);
  if (content) remember(byContent, content.key, manifest);
  return manifest;
}

// The manifest's JSON without its top-level `revision`, or undefined when it is not a JSON object.
function contentKey(text: string): { key: string; revision: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { revision, ...rest } = value as Record<string, unknown>;
  return { key: JSON.stringify(rest), revision };
}

// A parse leaves an absent revision out rather than setting it to undefined.
function withRevision(manifest: StoryManifest, revision: number | undefined): StoryManifest {
  if (revision !== undefined) return { ...manifest, revision };
  const { revision: _dropped, ...rest } = manifest;
  return rest;
}

function remember(memo: Map<string, StoryManifest>, key: string, manifest: StoryManifest): void {
  if (memo.has(key)) return;
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
  memo.set(key, manifest);
}
