import { type StoryManifest, type StoryManifestInput, StoryError, type StoryWorkspaceSnapshot, type StoryWorkspaces } from '@troupe/plugin-story';
import { Hono } from 'hono';
import type * as z from 'zod';
import { ApiError } from './api-error.js';
import {
  AddCharacterSchema,
  AddSectionSchema,
  AddSourceSchema,
  CreateStorySchema,
  PatchCharacterSchema,
  PatchManifestSchema,
  PatchSectionSchema,
  PatchSourceSchema,
  WriteFilesSchema,
} from './story-schemas.js';
import { baseRevisionQuery, ItemIdSchema, jsonBody, param, StoryIdSchema } from './validation.js';

/** One row of the story list. */
export interface StorySummary {
  readonly id: string;
  readonly name: string;
  readonly revision: number | null;
  readonly characters: number;
  readonly sections: number;
  readonly sources: number;
  /** Set when the manifest cannot be read (a hand edit broke it); the files are untouched. */
  readonly problem?: string;
}

/**
 * The story workspace routes under `/api/stories`: list, create, read, delete, file writes,
 * manifest settings and characters, sections and sources. Every save carries the base revision;
 * a stale one answers 409 and writes nothing.
 * @param workspaces - the demo's story workspaces
 * @returns the routes (mounted at `/api/stories`)
 */
export function storyRoutes(workspaces: StoryWorkspaces): Hono {
  const app = new Hono();
  const storyId = (c: Parameters<typeof param>[0]) => param(c, 'storyId', StoryIdSchema);
  const itemId = (c: Parameters<typeof param>[0], name: string) => param(c, name, ItemIdSchema);

  app.get('/', async (c) => c.json({ stories: await listStories(workspaces) }));

  app.post('/', async (c) => {
    const body = await jsonBody(c, CreateStorySchema);
    const created = await workspaces.create(body.id, {
      name: body.name,
      ...(body.outline === undefined ? {} : { outline: body.outline }),
      ...(body.foreshadowing === undefined ? {} : { foreshadowing: body.foreshadowing }),
    });
    return c.json(created, 201);
  });

  app.get('/:storyId', async (c) => c.json(await workspaces.read(storyId(c))));

  app.delete('/:storyId', async (c) => {
    const id = storyId(c);
    const deleted = await workspaces.delete(id, baseRevisionQuery(c));
    if (!deleted) throw new ApiError(404, 'STORY_WORKSPACE_NOT_FOUND', `There is no story workspace "${id}"`);
    return c.json({ deleted: true, id });
  });

  app.put('/:storyId/files', async (c) => {
    const id = storyId(c);
    const body = await jsonBody(c, WriteFilesSchema);
    const current = await workspaces.read(id);
    // Only files of items the manifest knows: a typo must not leave an orphan file behind.
    if (current.revision === body.baseRevision) for (const path of Object.keys(body.files)) checkItemFile(current.manifest, path);
    return c.json(await workspaces.writeFiles(id, body.baseRevision, body.files));
  });

  app.patch('/:storyId/manifest', async (c) => {
    const id = storyId(c);
    const body = await jsonBody(c, PatchManifestSchema);
    return c.json(
      await editManifest(workspaces, id, body.baseRevision, (manifest) => ({
        ...manifest,
        ...(body.name === undefined ? {} : { name: body.name }),
        pipeline: body.pipeline === undefined ? manifest.pipeline : patchPipeline(manifest.pipeline, body.pipeline),
      })),
    );
  });

  app.post('/:storyId/characters', async (c) => {
    const { baseRevision, ...character } = await jsonBody(c, AddCharacterSchema);
    return c.json(await workspaces.addCharacter(storyId(c), baseRevision, character), 201);
  });
  app.patch('/:storyId/characters/:characterId', async (c) => {
    const id = storyId(c);
    const characterId = itemId(c, 'characterId');
    const { baseRevision, ...patch } = await jsonBody(c, PatchCharacterSchema);
    return c.json(
      await editManifest(workspaces, id, baseRevision, (manifest) => ({
        ...manifest,
        characters: patchEntry(manifest.characters, characterId, 'characters', (entry) => ({ ...entry, ...patch })),
      })),
    );
  });
  app.delete('/:storyId/characters/:characterId', async (c) =>
    c.json(await workspaces.removeCharacter(storyId(c), baseRevisionQuery(c), itemId(c, 'characterId'))),
  );

  app.post('/:storyId/sections', async (c) => {
    const { baseRevision, ...section } = await jsonBody(c, AddSectionSchema);
    return c.json(await workspaces.addSection(storyId(c), baseRevision, section), 201);
  });
  app.patch('/:storyId/sections/:sectionId', async (c) => {
    const id = storyId(c);
    const sectionId = itemId(c, 'sectionId');
    const { baseRevision, ...patch } = await jsonBody(c, PatchSectionSchema);
    return c.json(await workspaces.updateSection(id, baseRevision, sectionId, patch));
  });
  app.delete('/:storyId/sections/:sectionId', async (c) => c.json(await workspaces.removeSection(storyId(c), baseRevisionQuery(c), itemId(c, 'sectionId'))));

  app.post('/:storyId/sources', async (c) => {
    const { baseRevision, ...source } = await jsonBody(c, AddSourceSchema);
    return c.json(await workspaces.addSource(storyId(c), baseRevision, source), 201);
  });
  app.patch('/:storyId/sources/:sourceId', async (c) => {
    const id = storyId(c);
    const sourceId = itemId(c, 'sourceId');
    const { baseRevision, ...patch } = await jsonBody(c, PatchSourceSchema);
    return c.json(
      await editManifest(workspaces, id, baseRevision, (manifest) => ({
        ...manifest,
        sources: patchEntry(manifest.sources, sourceId, 'sources', (entry) => ({ ...entry, ...patch })),
      })),
    );
  });
  app.delete('/:storyId/sources/:sourceId', async (c) => c.json(await workspaces.removeSource(storyId(c), baseRevisionQuery(c), itemId(c, 'sourceId'))));

  return app;
}

async function listStories(workspaces: StoryWorkspaces): Promise<StorySummary[]> {
  const ids = await workspaces.list();
  return Promise.all(
    ids.map(async (id): Promise<StorySummary> => {
      try {
        const { manifest, revision } = await workspaces.read(id);
        return { id, name: manifest.name, revision, characters: manifest.characters.length, sections: manifest.sections.length, sources: manifest.sources.length };
      } catch (error) {
        if (!StoryError.isInstance(error) || error.code !== 'STORY_MANIFEST_INVALID') throw error;
        const raw = await workspaces.readRaw(id);
        return { id, name: id, revision: raw.revision, characters: 0, sections: 0, sources: 0, problem: error.message };
      }
    }),
  );
}

// Read, check the base revision before computing the change (so an edit is never built on content
// the player has not seen), then commit with the same base revision (checked again atomically).
async function editManifest(
  workspaces: StoryWorkspaces,
  id: string,
  baseRevision: number,
  change: (manifest: StoryManifest) => StoryManifestInput,
): Promise<StoryWorkspaceSnapshot> {
  const current = await workspaces.read(id);
  if (current.revision !== baseRevision) {
    throw new StoryError(
      'STORY_REVISION_CONFLICT',
      `Someone else changed story workspace "${id}" while you were editing (you edited revision ${baseRevision}; it is now revision ${current.revision}). Nothing was saved: reload to see their changes, then apply yours again.`,
    );
  }
  return workspaces.updateManifest(id, baseRevision, change(current.manifest));
}

function patchEntry<T extends { id: string }>(entries: readonly T[], id: string, list: string, update: (entry: T) => T): T[] {
  if (!entries.some((entry) => entry.id === id)) throw new StoryError('STORY_ITEM_NOT_FOUND', `The workspace has no ${list} "${id}"`, { field: `${list}.id` });
  return entries.map((entry) => (entry.id === id ? update(entry) : entry));
}

function patchPipeline(current: StoryManifest['pipeline'], patch: z.output<typeof PatchManifestSchema>['pipeline'] & object): StoryManifest['pipeline'] {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as StoryManifest['pipeline'];
}

function checkItemFile(manifest: StoryManifest, path: string): void {
  const [folder, name] = path.split('/');
  const lists = { characters: manifest.characters, sections: manifest.sections, sources: manifest.sources } as const;
  if (name === undefined || !(folder && folder in lists)) return;
  const itemId = folder === 'characters' ? name : name.replace(/\.md$/, '');
  if (!lists[folder as keyof typeof lists].some((entry) => entry.id === itemId)) {
    throw new StoryError('STORY_ITEM_NOT_FOUND', `The workspace has no ${folder} "${itemId}"; add it before writing ${path}`, { field: `${folder}.id` });
  }
}
