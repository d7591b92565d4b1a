import type { TreeSnapshot } from '@troupe/kernel';
import { WORKSPACE_FILES } from './layout.js';
import type { PipelinePatch } from './manifest-entries.js';
import { type CharacterEntry, parseManifest, type SectionEntry, type SourceEntry, type StoryManifest, type StoryManifestInput } from './manifest.js';

/** A workspace as the editor sees it: revision, validated manifest and every file. */
export interface StoryWorkspaceSnapshot {
  readonly id: string;
  readonly revision: number;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
}

/** Options of `StoryWorkspaces.create`. */
export interface CreateWorkspaceOptions {
  readonly name: string;
  readonly outline?: string;
  readonly foreshadowing?: string;
  readonly pipeline?: StoryManifestInput['pipeline'];
}

/** A new character of `StoryWorkspaces.addCharacter`, with its initial persona and knowledge. */
export interface NewCharacter {
  readonly id: string;
  readonly name: string;
  readonly enabled?: boolean;
  readonly persona?: string;
  readonly knowledge?: string;
}

/** A new section of `StoryWorkspaces.addSection`, with its initial reference text. */
export interface NewSection {
  readonly id: string;
  readonly title: string;
  readonly kind: SectionEntry['kind'];
  readonly order?: number;
  readonly enabled?: boolean;
  readonly focus?: string | null;
  readonly reference?: string;
}

/** A new Markdown source of `StoryWorkspaces.addSource`. */
export interface NewSource {
  readonly id: string;
  readonly title: string;
  readonly enabled?: boolean;
  readonly text: string;
}

/** Changes to a character entry (`undefined` keeps a field). */
export type CharacterPatch = Partial<Pick<CharacterEntry, 'name' | 'enabled'>>;
/** Changes to a section entry (`undefined` keeps a field; `focus: null` means all participants). */
export type SectionPatch = Partial<Pick<SectionEntry, 'title' | 'kind' | 'order' | 'enabled' | 'focus'>>;
/** Changes to a source entry (`undefined` keeps a field). */
export type SourcePatch = Partial<Pick<SourceEntry, 'title' | 'enabled'>>;

/** Changes to the workspace settings: its name and pipeline settings. */
export interface SettingsPatch {
  readonly name?: string;
  readonly pipeline?: PipelinePatch;
}

/**
 * Turns a tree snapshot into a workspace snapshot, validating the manifest.
 * @param snapshot - what the tree store returned
 * @returns the workspace snapshot
 * @throws {StoryError} STORY_MANIFEST_INVALID when `manifest.json` does not parse or fit the schema
 */
export function toWorkspace(snapshot: TreeSnapshot): StoryWorkspaceSnapshot {
  const manifest = parseManifest(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
  return { id: snapshot.treeId, revision: snapshot.revision, manifest, files: snapshot.files };
}
