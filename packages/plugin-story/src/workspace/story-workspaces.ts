import type { TreeStore } from '@troupe/kernel';
import {
  addCharacterChange,
  addSectionChange,
  addSourceChange,
  removeCharacterChange,
  removeSectionChange,
  removeSourceChange,
  updateCharacterChange,
  updateSectionChange,
  updateSourceChange,
} from './manifest-changes.js';
import { StoryWorkspaceFiles } from './workspace-files.js';
import type { CharacterPatch, NewCharacter, NewSection, NewSource, SectionPatch, SourcePatch, StoryWorkspaceSnapshot } from './workspace-types.js';

/**
 * The editing API over story workspaces (one {@link TreeStore} tree per workspace), used by the
 * web UI and the CLI: everything of {@link StoryWorkspaceFiles} plus adding, changing and removing
 * characters, sections and sources. Every save carries the revision the player edited; a stale one
 * is rejected with `STORY_REVISION_CONFLICT` and nothing is written. Every manifest change is
 * validated (`STORY_MANIFEST_INVALID` naming the field) before anything is written.
 */
export class StoryWorkspaces extends StoryWorkspaceFiles {
  /**
   * Adds a character with its persona and (private) knowledge files.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param character - id, name, enabled flag and initial files
   * @returns the workspace after the write
   * @throws {StoryError} STORY_DUPLICATE_ID, STORY_INVALID_ID, STORY_MANIFEST_INVALID, STORY_REVISION_CONFLICT
   */
  addCharacter(id: string, baseRevision: number, character: NewCharacter): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, addCharacterChange(character));
  }

  /**
   * Changes a character's name and/or enabled flag (its id and files stay).
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param characterId - the character to change
   * @param patch - the new name and/or enabled flag
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID (e.g. an empty name), STORY_REVISION_CONFLICT
   */
  updateCharacter(id: string, baseRevision: number, characterId: string, patch: CharacterPatch): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, updateCharacterChange(characterId, patch));
  }

  /**
   * Renames a character (its id and files stay); shorthand for {@link StoryWorkspaces.updateCharacter}.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param characterId - the character to rename
   * @param name - the new display name
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID, STORY_REVISION_CONFLICT
   */
  renameCharacter(id: string, baseRevision: number, characterId: string, name: string): Promise<StoryWorkspaceSnapshot> {
    return this.updateCharacter(id, baseRevision, characterId, { name });
  }

  /**
   * Removes a character and its files; every section focused on it falls back to all participants.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param characterId - the character to remove
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT
   */
  removeCharacter(id: string, baseRevision: number, characterId: string): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, removeCharacterChange(characterId));
  }

  /**
   * Adds a section (appended after the current last `order` unless given) with its reference file.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param section - id, title, kind, order, enabled flag, focus and initial reference text
   * @returns the workspace after the write
   * @throws {StoryError} STORY_DUPLICATE_ID, STORY_INVALID_ID, STORY_MANIFEST_INVALID (e.g. unknown focus), STORY_REVISION_CONFLICT
   */
  addSection(id: string, baseRevision: number, section: NewSection): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, addSectionChange(section));
  }

  /**
   * Changes a section's title, kind, order, enabled flag or focus (its id and file stay).
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param sectionId - the section to change
   * @param patch - the changes (`focus: null` = all participants)
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID (e.g. unknown focus), STORY_REVISION_CONFLICT
   */
  updateSection(id: string, baseRevision: number, sectionId: string, patch: SectionPatch): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, updateSectionChange(sectionId, patch));
  }

  /**
   * Removes a section and its reference file.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param sectionId - the section to remove
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT
   */
  removeSection(id: string, baseRevision: number, sectionId: string): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, removeSectionChange(sectionId));
  }

  /**
   * Adds a Markdown source.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param source - id, title, enabled flag and the Markdown text
   * @returns the workspace after the write
   * @throws {StoryError} STORY_DUPLICATE_ID, STORY_INVALID_ID, STORY_MANIFEST_INVALID, STORY_REVISION_CONFLICT
   */
  addSource(id: string, baseRevision: number, source: NewSource): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, addSourceChange(source));
  }

  /**
   * Changes a source's title and/or enabled flag (its id and file stay).
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param sourceId - the source to change
   * @param patch - the new title and/or enabled flag
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID (e.g. an empty title), STORY_REVISION_CONFLICT
   */
  updateSource(id: string, baseRevision: number, sourceId: string, patch: SourcePatch): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, updateSourceChange(sourceId, patch));
  }

  /**
   * Renames a source (its id and file stay); shorthand for {@link StoryWorkspaces.updateSource}.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param sourceId - the source to rename
   * @param title - the new title
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID, STORY_REVISION_CONFLICT
   */
  renameSource(id: string, baseRevision: number, sourceId: string, title: string): Promise<StoryWorkspaceSnapshot> {
    return this.updateSource(id, baseRevision, sourceId, { title });
  }

  /**
   * Removes a source and its file.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param sourceId - the source to remove
   * @returns the workspace after the write
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT
   */
  removeSource(id: string, baseRevision: number, sourceId: string): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, removeSourceChange(sourceId));
  }
}
