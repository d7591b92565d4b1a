import type { SectionDefinition } from '../stages/director.js';
import { type CharacterEntry, orderedEnabledSections, type SectionEntry, type SourceEntry, type StoryManifest } from '../workspace/manifest.js';

/** What a turn's stages take from the manifest's lists: fixed while those lists are. */
export interface ManifestPlan {
  /** Enabled characters, in manifest order. */
  readonly characters: readonly CharacterEntry[];
  /** Enabled characters' identities (continuity's participants). */
  readonly participants: readonly { readonly id: string; readonly name: string }[];
  /** Ids of the enabled characters. */
  readonly participantIds: ReadonlySet<string>;
  /** Enabled sources, in manifest order. */
  readonly sources: readonly SourceEntry[];
  /** The section definitions the director and writers get, in manifest order (one implicit prose section when none is enabled). */
  readonly sections: readonly SectionDefinition[];
}

/** The section used when a workspace defines none: one natural prose passage. */
const IMPLICIT_SECTION: SectionEntry = { id: 'story', title: 'Story', kind: 'prose', order: 0, enabled: true, focus: null };

// Plans by the manifest's `characters` array. A settled turn stamps a new revision into the
// manifest, and the memo (`parseManifestForTurn`) hands out a copy that shares the lists of the
// manifest it was cut from: the lists stay the same objects until the player edits them, so the
// filtering, sorting and focus lookup are done once per manifest content, not twice per turn.
const plans = new WeakMap<readonly CharacterEntry[], { readonly sections: readonly SectionEntry[]; readonly sources: readonly SourceEntry[]; readonly plan: ManifestPlan }>();

/**
 * The enabled characters, sources and sections of a manifest, as the stages use them.
 * @param manifest - a validated manifest (never changed in place)
 * @returns the plan (the same object while the manifest's lists are the same; never throws)
 */
export function manifestPlan(manifest: StoryManifest): ManifestPlan {
  const known = plans.get(manifest.characters);
  if (known && known.sections === manifest.sections && known.sources === manifest.sources) return known.plan;
  const characters = manifest.characters.filter((c) => c.enabled);
  const participants = characters.map((c) => ({ id: c.id, name: c.name }));
  // Only an enabled character takes part in the scene (seed): a section focused on a disabled one
  // falls back to all participants, as for a deleted one; the manifest keeps the focus for when
  // the character is enabled again.
  const names = new Map(characters.map((c) => [c.id, c.name]));
  const entries = orderedEnabledSections(manifest);
  const sections: SectionDefinition[] = (entries.length > 0 ? entries : [IMPLICIT_SECTION]).map((s) => ({
    id: s.id,
    title: s.title,
    kind: s.kind,
    focus: s.focus !== null && names.has(s.focus) ? { id: s.focus, name: names.get(s.focus)! } : null,
  }));
  const plan: ManifestPlan = {
    characters,
    participants,
    participantIds: new Set(participants.map((p) => p.id)),
    sources: manifest.sources.filter((s) => s.enabled),
    sections,
  };
  plans.set(manifest.characters, { sections: manifest.sections, sources: manifest.sources, plan });
  return plan;
}
