import { KernelStorageError, type TreeSnapshot, type TreeStore } from '@troupe/kernel';
import { StoryError } from '../errors.js';
import { WORKSPACE_FILES } from './layout.js';
import { parseManifest, type StoryManifestInput, serializeManifest } from './manifest.js';
import { changeSettings, type ManifestChange } from './manifest-changes.js';
import type { PipelinePatch } from './manifest-entries.js';
import { revisionConflict, withStoryErrors } from './storage-errors.js';
import { type CreateWorkspaceOptions, type SettingsPatch, type StoryWorkspaceSnapshot, toWorkspace } from './workspace-types.js';

/**
 * The workspace-level half of the editing API: create, list, read, write files, settings and
 * delete, plus the base-revision-checked edit that `StoryWorkspaces` builds its item edits on.
 * Every save carries the revision the player edited; a stale one is rejected with
 * `STORY_REVISION_CONFLICT` and nothing is written.
 */
export class StoryWorkspaceFiles {
  readonly #trees: TreeStore;

  /** @param trees - where workspaces live (in memory, or `@troupe/storage-fs` on disk) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /**
   * Creates a workspace with an empty outline, foreshadowing, proposals and history.
   * @param id - workspace id (1–64 of a-z, 0-9, `_`, `-`)
   * @param options - name and optional initial outline/foreshadowing/pipeline
   * @returns the new workspace (revision 1)
   * @throws {StoryError} STORY_WORKSPACE_EXISTS, STORY_INVALID_ID, STORY_MANIFEST_INVALID
   */
  async create(id: string, options: CreateWorkspaceOptions): Promise<StoryWorkspaceSnapshot> {
    const manifest = serializeManifest({ name: options.name, ...(options.pipeline ? { pipeline: options.pipeline } : {}) });
    const snapshot = await withStoryErrors(id, () =>
      this.#trees.create(id, {
        [WORKSPACE_FILES.manifest]: manifest,
        [WORKSPACE_FILES.outline]: options.outline ?? '',
        [WORKSPACE_FILES.foreshadowing]: options.foreshadowing ?? '',
        [WORKSPACE_FILES.proposals]: '',
        [WORKSPACE_FILES.history]: '',
      }),
    );
    return toWorkspace(snapshot);
  }

  /**
   * Lists the workspaces, including those whose manifest is broken.
   * @returns every workspace id, sorted
   * @throws the tree store's own errors (e.g. an unreadable storage root), unchanged
   */
  list(): Promise<readonly string[]> {
    return this.#trees.list();
  }

  /**
   * Reads a workspace with its validated manifest.
   * @param id - workspace id
   * @returns the workspace: revision, manifest and every file
   * @throws {StoryError} STORY_WORKSPACE_NOT_FOUND, STORY_INVALID_ID, STORY_MANIFEST_INVALID (a
   *   hand-edited manifest; the file is untouched — use {@link StoryWorkspaces.readRaw} to repair it)
   */
  async read(id: string): Promise<StoryWorkspaceSnapshot> {
    return toWorkspace(await withStoryErrors(id, () => this.#trees.read(id)));
  }

  /**
   * Reads the raw files and revision without validating the manifest, so a player can repair a
   * broken `manifest.json` or delete the workspace (both need only the revision).
   * @param id - workspace id
   * @returns the tree snapshot (revision and every file as stored)
   * @throws {StoryError} STORY_WORKSPACE_NOT_FOUND, STORY_INVALID_ID
   */
  readRaw(id: string): Promise<TreeSnapshot> {
    return withStoryErrors(id, () => this.#trees.read(id));
  }

  /**
   * Writes (or with `null` deletes) files and returns the validated workspace. A written
   * `manifest.json` is validated first (this is how a broken one is repaired); without one, the
   * current manifest is checked before anything is written, so a broken manifest fails here with
   * nothing written — use {@link StoryWorkspaceFiles.writeRawFiles} to edit other files meanwhile.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param writes - path → new content (`null` deletes)
   * @returns the workspace after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_INVALID_PATH, STORY_MANIFEST_INVALID (the new
   *   manifest, or the current one when the write leaves it in place), STORY_WORKSPACE_NOT_FOUND
   */
  async writeFiles(id: string, baseRevision: number, writes: Readonly<Record<string, string | null>>): Promise<StoryWorkspaceSnapshot> {
    if (writes[WORKSPACE_FILES.manifest] === undefined) {
      const current = await this.readRaw(id);
      if (current.revision !== baseRevision) throw revisionConflict(id, baseRevision, current.revision);
      parseManifest(current.files[WORKSPACE_FILES.manifest] ?? '');
    }
    return toWorkspace(await this.writeRawFiles(id, baseRevision, writes));
  }

  /**
   * Writes (or with `null` deletes) files without needing a valid current manifest, so a player
   * can keep editing (and repair) a workspace whose `manifest.json` a hand edit broke. A written
   * `manifest.json` is still validated first.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param writes - path → new content (`null` deletes)
   * @returns the raw tree snapshot after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_INVALID_PATH (also for deleting
   *   `manifest.json`), STORY_MANIFEST_INVALID (the new manifest), STORY_WORKSPACE_NOT_FOUND
   */
  async writeRawFiles(id: string, baseRevision: number, writes: Readonly<Record<string, string | null>>): Promise<TreeSnapshot> {
    const manifest = writes[WORKSPACE_FILES.manifest];
    if (manifest === null) throw new StoryError('STORY_INVALID_PATH', 'manifest.json cannot be deleted; delete the workspace instead', { field: 'manifest.json' });
    const checked = manifest === undefined ? writes : { ...writes, [WORKSPACE_FILES.manifest]: serializeManifest(parseManifest(manifest)) };
    return this.#commitWrites(id, baseRevision, checked);
  }

  /**
   * Replaces the manifest (validated).
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param manifest - the whole new manifest
   * @returns the workspace after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_MANIFEST_INVALID, STORY_WORKSPACE_NOT_FOUND
   */
  updateManifest(id: string, baseRevision: number, manifest: StoryManifestInput): Promise<StoryWorkspaceSnapshot> {
    return this.writeFiles(id, baseRevision, { [WORKSPACE_FILES.manifest]: serializeManifest(manifest) });
  }

  /**
   * Changes the workspace name and/or pipeline settings.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param patch - the new name and pipeline changes (`null` removes `provider`/`model`)
   * @returns the workspace after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_MANIFEST_INVALID (e.g. `pipeline.maxParallel`
   *   outside 1–8, or a broken current manifest), STORY_WORKSPACE_NOT_FOUND
   */
  updateSettings(id: string, baseRevision: number, patch: SettingsPatch): Promise<StoryWorkspaceSnapshot> {
    return this.edit(id, baseRevision, changeSettings(patch));
  }

  /**
   * Changes the pipeline settings (parallelism, the stages' own provider/model, web search).
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param patch - the changes (`null` removes `provider`/`model`: back to the session's model)
   * @returns the workspace after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_MANIFEST_INVALID, STORY_WORKSPACE_NOT_FOUND
   */
  updatePipeline(id: string, baseRevision: number, patch: PipelinePatch): Promise<StoryWorkspaceSnapshot> {
    return this.updateSettings(id, baseRevision, { pipeline: patch });
  }

  /**
   * Deletes a workspace and its files, if it is still at `baseRevision`. The manifest is not read,
   * so a workspace with a broken manifest can be deleted too (take the revision from
   * {@link StoryWorkspaces.readRaw}).
   * @param id - workspace id
   * @param baseRevision - the revision the player saw
   * @returns true when deleted, false when it did not exist
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_INVALID_ID
   */
  async delete(id: string, baseRevision: number): Promise<boolean> {
    let current: TreeSnapshot;
    try {
      current = await this.readRaw(id);
    } catch (error) {
      if (StoryError.isInstance(error) && error.code === 'STORY_WORKSPACE_NOT_FOUND') return false;
      throw error;
    }
    if (current.revision !== baseRevision) throw revisionConflict(id, baseRevision, current.revision);
    return withStoryErrors(id, () => this.#trees.delete(id));
  }

  /**
   * Deletes a workspace whose store files are damaged (the store answers `TREE_CORRUPT`, so it has
   * no revision to check against). A readable workspace is never deleted this way: use
   * {@link StoryWorkspaceFiles.delete} with its revision.
   * @param id - workspace id
   * @returns true when deleted, false when it did not exist
   * @throws {StoryError} STORY_WORKSPACE_NOT_DAMAGED when it is readable, STORY_INVALID_ID
   */
  async deleteDamaged(id: string): Promise<boolean> {
    try {
      await this.readRaw(id);
    } catch (error) {
      if (StoryError.isInstance(error) && error.code === 'STORY_WORKSPACE_NOT_FOUND') return false;
      if (KernelStorageError.isInstance(error) && error.code === 'TREE_CORRUPT') return withStoryErrors(id, () => this.#trees.delete(id));
      throw error;
    }
    throw new StoryError('STORY_WORKSPACE_NOT_DAMAGED', `Story workspace "${id}" is readable: delete it with the revision you saw (?baseRevision=N)`);
  }

  /**
   * Runs a manifest change under the player's base revision: checked before the change is computed
   * (so an edit is never built on content the player has not seen) and again atomically in the store.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param change - computes the next manifest and file writes from the current manifest
   * @returns the workspace after the write
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_WORKSPACE_NOT_FOUND, STORY_MANIFEST_INVALID
   *   (the current manifest is broken, or the change makes it invalid), and whatever `change` throws
   */
  protected async edit(id: string, baseRevision: number, change: ManifestChange): Promise<StoryWorkspaceSnapshot> {
    const current = await this.readRaw(id);
    if (current.revision !== baseRevision) throw revisionConflict(id, baseRevision, current.revision);
    const manifest = parseManifest(current.files[WORKSPACE_FILES.manifest] ?? '');
    const next = change(manifest);
    return toWorkspace(await this.#commitWrites(id, baseRevision, { ...next.files, [WORKSPACE_FILES.manifest]: serializeManifest(next.manifest) }));
  }

  #commitWrites(id: string, baseRevision: number, writes: Readonly<Record<string, string | null>>): Promise<TreeSnapshot> {
    return withStoryErrors(id, () => this.#trees.commit(id, { baseRevision, writes }));
  }
}

