import { parseManifest, type StoryManifest } from './manifest.js';

// Manifest texts seen lately and what they parse to: a turn reads the same manifest in preActor
// and postReview (and the next turn usually too), so it is validated once, not per hook.
// Keyed by the text: hashing it once also flattens a stamped manifest (a rope of the text around
// its new revision digits), which the template check then reads fast; comparing unhashed ropes
// one by one is far slower. Bounded by starting over when full (no per-turn eviction churn: the
// next text of a known manifest still comes from its template, without a parse).
const MEMO_ENTRIES = 32;
const byText = new Map<string, StoryManifest>();

/**
 * A parsed manifest text cut around the digits of its top-level `revision`: every settled turn
 * stamps a new revision into the text, and the next turn's text is otherwise the same, so a text
 * of the form `before + digits + after` parses to this manifest with that revision.
 */
interface RevisionTemplate {
  readonly before: string;
  readonly after: string;
  readonly manifest: StoryManifest;
}

// Most recently used first.
const templates: RevisionTemplate[] = [];
// A revision as JSON writes a safe integer (no sign, fraction, exponent or leading zero).
const REVISION_DIGITS = /^(0|[1-9][0-9]{0,14})$/;
// Where a top-level revision may be: the member, then its digits ending the number.
const REVISION_MEMBER = /"revision"\s*:\s*([0-9]+)(?=\s*[,}])/g;

/**
 * {@link parseManifest} with a small memo (the turn's hooks only read the result): the same text
 * gives the same object, and a text that differs from a remembered one only in the digits of its
 * top-level `revision` is not parsed or validated again (its revision is checked).
 * @param text - the `manifest.json` content
 * @returns the validated manifest (the same object for the same text while it is remembered)
 * @throws {StoryError} STORY_MANIFEST_INVALID like {@link parseManifest} (failures are not remembered)
 */
export function parseManifestForTurn(text: string): StoryManifest {
  const known = byText.get(text);
  if (known) return known;
  const manifest = fromTemplate(text) ?? parsedWithTemplate(text);
  if (byText.size >= MEMO_ENTRIES) byText.clear();
  byText.set(text, manifest);
  return manifest;
}

// The manifest of a text that matches a template, without a parse; undefined when none does.
function fromTemplate(text: string): StoryManifest | undefined {
  for (let at = 0; at < templates.length; at++) {
    const template = templates[at]!;
    const { before, after } = template;
    if (text.length <= before.length + after.length || !text.startsWith(before) || !text.endsWith(after)) continue;
    const digits = text.slice(before.length, text.length - after.length);
    // At most 15 digits: always a safe integer ≥ 0, which is all the schema asks of a revision.
    if (!REVISION_DIGITS.test(digits)) continue;
    if (at > 0) {
      templates.splice(at, 1);
      templates.unshift(template);
    }
    return { ...template.manifest, revision: Number(digits) };
  }
  return undefined;
}

// The full parse (and its error), remembering the text's template when its top-level revision
// can be found: the one `"revision": <digits>` member whose digits, changed, change the parsed
// revision (one more parse, once per manifest content, not per turn).
function parsedWithTemplate(text: string): StoryManifest {
  const manifest = parseManifest(text);
  if (manifest.revision === undefined) return manifest;
  const digits = String(manifest.revision);
  for (const match of text.matchAll(REVISION_MEMBER)) {
    if (match[1] !== digits) continue;
    const end = match.index + match[0].length;
    const before = text.slice(0, end - digits.length);
    const after = text.slice(end);
    const probe = manifest.revision + 1;
    let changed: unknown;
    try {
      changed = (JSON.parse(`${before}${probe}${after}`) as { revision?: unknown }).revision;
    } catch {
      continue;
    }
    if (changed !== probe) continue;
    if (templates.length >= MEMO_ENTRIES) templates.pop();
    templates.unshift({ before, after, manifest });
    break;
  }
  return manifest;
}
