import { KernelStorageError, RevisionConflictError, type TreeSnapshot, type TreeStore } from '@troupe/kernel';
import { StoryError } from '../errors.js';
import { knowledgePath, personaPath, sectionPath, sourcePath, WORKSPACE_FILES } from './layout.js';
import {
  type CharacterEntry,
  parseManifest,
  type SectionEntry,
  type SourceEntry,
  type StoryManifest,
  type StoryManifestInput,
  serializeManifest,
  STORY_ITEM_ID_PATTERN,
} from './manifest.js';

/** A workspace as the editor sees it: revision, validated manifest and every file. */
export interface StoryWorkspaceSnapshot {
  readonly id: string;
  readonly revision: number;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
}

/** Options of {@link StoryWorkspaces.create}. */
export interface CreateWorkspaceOptions {
  readonly name: string;
  readonly outline?: string;
  readonly foreshadowing?: string;
  readonly pipeline?: StoryManifestInput['pipeline'];
}

/**
 * The editing API over story workspaces (one {@link TreeStore} tree per workspace), used by the
 * web UI. Every save carries the revision the player edited; a stale one is rejected with
 * `STORY_REVISION_CONFLICT` and nothing is written.
 */
export class StoryWorkspaces {
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
    const snapshot = await this.#storage(id, () =>
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

  /** Ids of every workspace, sorted. */
  list(): Promise<readonly string[]> {
    return this.#trees.list();
  }

  /**
   * Reads a workspace with its validated manifest.
   * @throws {StoryError} STORY_WORKSPACE_NOT_FOUND, STORY_MANIFEST_INVALID (a hand-edited manifest; the file is untouched)
   */
  async read(id: string): Promise<StoryWorkspaceSnapshot> {
    return toWorkspace(await this.#storage(id, () => this.#trees.read(id)));
  }

  /**
   * Reads the raw files without validating the manifest (so a player can repair a broken one).
   * @throws {StoryError} STORY_WORKSPACE_NOT_FOUND
   */
  readRaw(id: string): Promise<TreeSnapshot> {
    return this.#storage(id, () => this.#trees.read(id));
  }

  /**
   * Writes (or with `null` deletes) files. `manifest.json` content is validated first.
   * @param id - workspace id
   * @param baseRevision - the revision the player edited
   * @param writes - path → new content (`null` deletes)
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_INVALID_PATH, STORY_MANIFEST_INVALID
   */
  async writeFiles(id: string, baseRevision: number, writes: Readonly<Record<string, string | null>>): Promise<StoryWorkspaceSnapshot> {
    const manifest = writes[WORKSPACE_FILES.manifest];
    if (manifest === null) throw new StoryError('STORY_INVALID_PATH', 'manifest.json cannot be deleted; delete the workspace instead', { field: 'manifest.json' });
    const checked = manifest === undefined ? writes : { ...writes, [WORKSPACE_FILES.manifest]: serializeManifest(parseManifest(manifest)) };
    return toWorkspace(await this.#commit(id, baseRevision, checked));
  }

  /**
   * Replaces the manifest (validated).
   * @throws {StoryError} STORY_REVISION_CONFLICT, STORY_MANIFEST_INVALID
   */
  updateManifest(id: string, baseRevision: number, manifest: StoryManifestInput): Promise<StoryWorkspaceSnapshot> {
    return this.writeFiles(id, baseRevision, { [WORKSPACE_FILES.manifest]: serializeManifest(manifest) });
  }

  /**
   * Deletes a workspace and its files, if it is still at `baseRevision`.
   * @returns false when it did not exist
   * @throws {StoryError} STORY_REVISION_CONFLICT
   */
  async delete(id: string, baseRevision: number): Promise<boolean> {
    let current: TreeSnapshot;
    try {
      current = await this.#storage(id, () => this.#trees.read(id));
    } catch (error) {
      if (StoryError.isInstance(error) && error.code === 'STORY_WORKSPACE_NOT_FOUND') return false;
      throw error;
    }
    if (current.revision !== baseRevision) throw conflict(id, baseRevision, current.revision);
    return this.#storage(id, () => this.#trees.delete(id));
  }

  /**
   * Adds a character with its persona and (private) knowledge files.
   * @throws {StoryError} STORY_DUPLICATE_ID, STORY_INVALID_ID, STORY_REVISION_CONFLICT
   */
  addCharacter(
    id: string,
    baseRevision: number,
    character: { id: string; name: string; enabled?: boolean; persona?: string; knowledge?: string },
  ): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      checkNewId(manifest.characters, character.id, 'characters');
      const entry: CharacterEntry = { id: character.id, name: character.name, enabled: character.enabled ?? true };
      return {
        manifest: { ...manifest, characters: [...manifest.characters, entry] },
        files: { [personaPath(character.id)]: character.persona ?? '', [knowledgePath(character.id)]: character.knowledge ?? '' },
      };
    });
  }

  /** Renames a character (its id and files stay). @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT */
  renameCharacter(id: string, baseRevision: number, characterId: string, name: string): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => ({
      manifest: { ...manifest, characters: replaceEntry(manifest.characters, characterId, 'characters', (c) => ({ ...c, name })) },
      files: {},
    }));
  }

  /**
   * Removes a character and its files; every section focused on it falls back to all participants.
   * @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT
   */
  removeCharacter(id: string, baseRevision: number, characterId: string): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      findEntry(manifest.characters, characterId, 'characters');
      return {
        manifest: {
          ...manifest,
          characters: manifest.characters.filter((c) => c.id !== characterId),
          sections: manifest.sections.map((s) => (s.focus === characterId ? { ...s, focus: null } : s)),
        },
        files: { [personaPath(characterId)]: null, [knowledgePath(characterId)]: null },
      };
    });
  }

  /**
   * Adds a section (appended after the current last `order` unless given) with its reference file.
   * @throws {StoryError} STORY_DUPLICATE_ID, STORY_MANIFEST_INVALID (e.g. unknown focus), STORY_REVISION_CONFLICT
   */
  addSection(
    id: string,
    baseRevision: number,
    section: { id: string; title: string; kind: SectionEntry['kind']; order?: number; enabled?: boolean; focus?: string | null; reference?: string },
  ): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      checkNewId(manifest.sections, section.id, 'sections');
      const order = section.order ?? Math.max(0, ...manifest.sections.map((s) => s.order + 1));
      const entry: SectionEntry = { id: section.id, title: section.title, kind: section.kind, order, enabled: section.enabled ?? true, focus: section.focus ?? null };
      return { manifest: { ...manifest, sections: [...manifest.sections, entry] }, files: { [sectionPath(section.id)]: section.reference ?? '' } };
    });
  }

  /** Changes a section's title, kind, order, enabled flag or focus. @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_MANIFEST_INVALID, STORY_REVISION_CONFLICT */
  updateSection(id: string, baseRevision: number, sectionId: string, patch: Partial<Omit<SectionEntry, 'id'>>): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => ({
      manifest: { ...manifest, sections: replaceEntry(manifest.sections, sectionId, 'sections', (s) => ({ ...s, ...patch })) },
      files: {},
    }));
  }

  /** Removes a section and its reference file. @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT */
  removeSection(id: string, baseRevision: number, sectionId: string): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      findEntry(manifest.sections, sectionId, 'sections');
      return { manifest: { ...manifest, sections: manifest.sections.filter((s) => s.id !== sectionId) }, files: { [sectionPath(sectionId)]: null } };
    });
  }

  /** Adds a Markdown source. @throws {StoryError} STORY_DUPLICATE_ID, STORY_REVISION_CONFLICT */
  addSource(id: string, baseRevision: number, source: { id: string; title: string; enabled?: boolean; text: string }): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      checkNewId(manifest.sources, source.id, 'sources');
      const entry: SourceEntry = { id: source.id, title: source.title, enabled: source.enabled ?? true };
      return { manifest: { ...manifest, sources: [...manifest.sources, entry] }, files: { [sourcePath(source.id)]: source.text } };
    });
  }

  /** Renames a source (its id and file stay). @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT */
  renameSource(id: string, baseRevision: number, sourceId: string, title: string): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => ({
      manifest: { ...manifest, sources: replaceEntry(manifest.sources, sourceId, 'sources', (s) => ({ ...s, title })) },
      files: {},
    }));
  }

  /** Removes a source and its file. @throws {StoryError} STORY_ITEM_NOT_FOUND, STORY_REVISION_CONFLICT */
  removeSource(id: string, baseRevision: number, sourceId: string): Promise<StoryWorkspaceSnapshot> {
    return this.#edit(id, baseRevision, (manifest) => {
      findEntry(manifest.sources, sourceId, 'sources');
      return { manifest: { ...manifest, sources: manifest.sources.filter((s) => s.id !== sourceId) }, files: { [sourcePath(sourceId)]: null } };
    });
  }

  // Read-modify-write with the player's base revision: the check happens before we compute the
  // change (so we never build an edit on newer content) and again atomically in the store.
  async #edit(
    id: string,
    baseRevision: number,
    change: (manifest: StoryManifest) => { manifest: StoryManifestInput; files: Record<string, string | null> },
  ): Promise<StoryWorkspaceSnapshot> {
    const current = await this.#storage(id, () => this.#trees.read(id));
    if (current.revision !== baseRevision) throw conflict(id, baseRevision, current.revision);
    const manifest = parseManifest(current.files[WORKSPACE_FILES.manifest] ?? '');
    const next = change(manifest);
    return toWorkspace(await this.#commit(id, baseRevision, { ...next.files, [WORKSPACE_FILES.manifest]: serializeManifest(next.manifest) }));
  }

  #commit(id: string, baseRevision: number, writes: Readonly<Record<string, string | null>>): Promise<TreeSnapshot> {
    return this.#storage(id, () => this.#trees.commit(id, { baseRevision, writes }));
  }

  // Maps storage errors to the player-facing codes of this package (cause kept).
  async #storage<T>(id: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw mapStorageError(id, error);
    }
  }
}

function mapStorageError(id: string, error: unknown): unknown {
  if (error instanceof RevisionConflictError || (KernelStorageError.isInstance(error) && error.code === 'TREE_REVISION_CONFLICT')) {
    const e = error as RevisionConflictError;
    return conflict(id, e.baseRevision, e.currentRevision, error);
  }
  if (!KernelStorageError.isInstance(error)) return error;
  switch (error.code) {
    case 'TREE_NOT_FOUND':
      return new StoryError('STORY_WORKSPACE_NOT_FOUND', `There is no story workspace "${id}"`, { cause: error });
    case 'TREE_EXISTS':
      return new StoryError('STORY_WORKSPACE_EXISTS', `A story workspace "${id}" already exists`, { cause: error });
    case 'TREE_INVALID_ID':
      return new StoryError('STORY_INVALID_ID', error.message, { cause: error, field: 'id' });
    case 'TREE_INVALID_PATH':
      return new StoryError('STORY_INVALID_PATH', error.message, { cause: error, field: 'path' });
    default:
      return error;
  }
}

function conflict(id: string, baseRevision: number, currentRevision: number, cause?: unknown): StoryError {
  return new StoryError(
    'STORY_REVISION_CONFLICT',
    `Someone else changed story workspace "${id}" while you were editing (you edited revision ${baseRevision}; it is now revision ${currentRevision}). Nothing was saved: reload to see their changes, then apply yours again.`,
    cause === undefined ? {} : { cause },
  );
}

function toWorkspace(snapshot: TreeSnapshot): StoryWorkspaceSnapshot {
  const manifest = parseManifest(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
  return { id: snapshot.treeId, revision: snapshot.revision, manifest, files: snapshot.files };
}

function checkNewId(entries: readonly { id: string }[], id: string, list: string): void {
  if (!STORY_ITEM_ID_PATTERN.test(id)) {
    throw new StoryError('STORY_INVALID_ID', `Invalid ${list} id ${JSON.stringify(id)}: use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit`, {
      field: `${list}.id`,
    });
  }
  if (entries.some((entry) => entry.id === id)) throw new StoryError('STORY_DUPLICATE_ID', `The workspace already has ${list} "${id}"`, { field: `${list}.id` });
}

function findEntry<T extends { id: string }>(entries: readonly T[], id: string, list: string): T {
  const found = entries.find((entry) => entry.id === id);
  if (!found) throw new StoryError('STORY_ITEM_NOT_FOUND', `The workspace has no ${list} "${id}"`, { field: `${list}.id` });
  return found;
}

function replaceEntry<T extends { id: string }>(entries: readonly T[], id: string, list: string, update: (entry: T) => T): T[] {
  findEntry(entries, id, list);
  return entries.map((entry) => (entry.id === id ? update(entry) : entry));
}
