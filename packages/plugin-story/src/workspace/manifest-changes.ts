import { knowledgePath, personaPath, sectionPath, sourcePath } from './layout.js';
import { applyPatch, applyPipelinePatch, checkNewId, findEntry, replaceEntry } from './manifest-entries.js';
import type { CharacterEntry, SectionEntry, SourceEntry, StoryManifest, StoryManifestInput } from './manifest.js';
import type { CharacterPatch, NewCharacter, NewSection, NewSource, SectionPatch, SettingsPatch, SourcePatch } from './workspace-types.js';

/** A computed edit: the next manifest (validated when written) and the files to write or delete (`null`). */
export interface ManifestEdit {
  readonly manifest: StoryManifestInput;
  readonly files: Readonly<Record<string, string | null>>;
}

/** A pure edit of a validated manifest; `StoryWorkspaces` runs it under the base-revision check. */
export type ManifestChange = (manifest: StoryManifest) => ManifestEdit;

// Each change below is pure: it never reads storage, so the same manifest always gives the same edit.

/**
 * Changes the workspace name and/or pipeline settings.
 * @param patch - the new name and pipeline changes
 * @returns the change; running it throws {StoryError} STORY_MANIFEST_INVALID (when written)
 */
export const changeSettings =
  (patch: SettingsPatch): ManifestChange =>
  (manifest) => ({
    manifest: {
      ...manifest,
      ...(patch.name === undefined ? {} : { name: patch.name }),
      pipeline: patch.pipeline === undefined ? manifest.pipeline : applyPipelinePatch(manifest.pipeline, patch.pipeline),
    },
    files: {},
  });

/**
 * Adds a character entry with its persona and knowledge files.
 * @param character - the new character
 * @returns the change; running it throws {StoryError} STORY_INVALID_ID, STORY_DUPLICATE_ID
 */
export const addCharacterChange =
  (character: NewCharacter): ManifestChange =>
  (manifest) => {
    checkNewId(manifest.characters, character.id, 'characters');
    const entry: CharacterEntry = { id: character.id, name: character.name, enabled: character.enabled ?? true };
    return {
      manifest: { ...manifest, characters: [...manifest.characters, entry] },
      files: { [personaPath(character.id)]: character.persona ?? '', [knowledgePath(character.id)]: character.knowledge ?? '' },
    };
  };

/**
 * Changes a character's name and/or enabled flag.
 * @param characterId - the character
 * @param patch - the changes
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const updateCharacterChange =
  (characterId: string, patch: CharacterPatch): ManifestChange =>
  (manifest) => ({
    manifest: { ...manifest, characters: replaceEntry(manifest.characters, characterId, 'characters', (c) => applyPatch(c, patch, ['name', 'enabled'])) },
    files: {},
  });

/**
 * Removes a character and its files; sections focused on it fall back to all participants (`focus: null`).
 * @param characterId - the character
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const removeCharacterChange =
  (characterId: string): ManifestChange =>
  (manifest) => {
    findEntry(manifest.characters, characterId, 'characters');
    return {
      manifest: {
        ...manifest,
        characters: manifest.characters.filter((c) => c.id !== characterId),
        sections: manifest.sections.map((s) => (s.focus === characterId ? { ...s, focus: null } : s)),
      },
      files: { [personaPath(characterId)]: null, [knowledgePath(characterId)]: null },
    };
  };

/**
 * Adds a section with its reference file; without `order` it goes after the current last one.
 * @param section - the new section
 * @returns the change; running it throws {StoryError} STORY_INVALID_ID, STORY_DUPLICATE_ID
 */
export const addSectionChange =
  (section: NewSection): ManifestChange =>
  (manifest) => {
    checkNewId(manifest.sections, section.id, 'sections');
    const order = section.order ?? Math.max(0, ...manifest.sections.map((s) => s.order + 1));
    const entry: SectionEntry = { id: section.id, title: section.title, kind: section.kind, order, enabled: section.enabled ?? true, focus: section.focus ?? null };
    return { manifest: { ...manifest, sections: [...manifest.sections, entry] }, files: { [sectionPath(section.id)]: section.reference ?? '' } };
  };

/**
 * Changes a section's title, kind, order, enabled flag or focus.
 * @param sectionId - the section
 * @param patch - the changes
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const updateSectionChange =
  (sectionId: string, patch: SectionPatch): ManifestChange =>
  (manifest) => ({
    manifest: {
      ...manifest,
      sections: replaceEntry(manifest.sections, sectionId, 'sections', (s) => applyPatch(s, patch, ['title', 'kind', 'order', 'enabled', 'focus'])),
    },
    files: {},
  });

/**
 * Removes a section and its reference file.
 * @param sectionId - the section
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const removeSectionChange =
  (sectionId: string): ManifestChange =>
  (manifest) => {
    findEntry(manifest.sections, sectionId, 'sections');
    return { manifest: { ...manifest, sections: manifest.sections.filter((s) => s.id !== sectionId) }, files: { [sectionPath(sectionId)]: null } };
  };

/**
 * Adds a Markdown source with its file.
 * @param source - the new source
 * @returns the change; running it throws {StoryError} STORY_INVALID_ID, STORY_DUPLICATE_ID
 */
export const addSourceChange =
  (source: NewSource): ManifestChange =>
  (manifest) => {
    checkNewId(manifest.sources, source.id, 'sources');
    const entry: SourceEntry = { id: source.id, title: source.title, enabled: source.enabled ?? true };
    return { manifest: { ...manifest, sources: [...manifest.sources, entry] }, files: { [sourcePath(source.id)]: source.text } };
  };

/**
 * Changes a source's title and/or enabled flag.
 * @param sourceId - the source
 * @param patch - the changes
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const updateSourceChange =
  (sourceId: string, patch: SourcePatch): ManifestChange =>
  (manifest) => ({
    manifest: { ...manifest, sources: replaceEntry(manifest.sources, sourceId, 'sources', (s) => applyPatch(s, patch, ['title', 'enabled'])) },
    files: {},
  });

/**
 * Removes a source and its file.
 * @param sourceId - the source
 * @returns the change; running it throws {StoryError} STORY_ITEM_NOT_FOUND
 */
export const removeSourceChange =
  (sourceId: string): ManifestChange =>
  (manifest) => {
    findEntry(manifest.sources, sourceId, 'sources');
    return { manifest: { ...manifest, sources: manifest.sources.filter((s) => s.id !== sourceId) }, files: { [sourcePath(sourceId)]: null } };
  };
