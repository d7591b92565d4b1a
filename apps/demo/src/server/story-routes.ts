import { KernelStorageError } from '@troupe/kernel';
import { parseManifest, type StoryManifest, StoryError, type StoryWorkspaces, WORKSPACE_FILES } from '@troupe/plugin-story';
import { Hono } from 'hono';
import type { StorySummary } from '../wire/story.js';
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

  // Without ?baseRevision only a damaged workspace (no revision to show) is deleted.
  app.delete('/:storyId', async (c) => {
    const id = storyId(c);
    const deleted = c.req.query('baseRevision') === undefined ? await workspaces.deleteDamaged(id) : await workspaces.delete(id, baseRevisionQuery(c));
    if (!deleted) throw new ApiError(404, 'STORY_WORKSPACE_NOT_FOUND', `There is no story workspace "${id}"`);
    return c.json({ deleted: true, id });
  });

  // Works on a workspace whose manifest.json a hand edit broke (it needs only the revision), so the
  // player can keep editing and repair the manifest (a valid manifest.json in the same write).
  app.put('/:storyId/files', async (c) => {
    const id = storyId(c);
    const body = await jsonBody(c, WriteFilesSchema);
    const current = await workspaces.readRaw(id);
    const manifest = manifestInEffect(current.files, body.files);
    // Only files of items the manifest knows: a typo must not leave an orphan file behind.
    if (current.revision === body.baseRevision) for (const path of Object.keys(body.files)) checkItemFile(manifest, path);
    if (manifest.ok) return c.json(await workspaces.writeFiles(id, body.baseRevision, body.files));
    const written = await workspaces.writeRawFiles(id, body.baseRevision, body.files);
    return c.json({ id, revision: written.revision, files: written.files, problem: manifest.problem });
  });

  app.patch('/:storyId/manifest', async (c) => {
    const { baseRevision, ...patch } = await jsonBody(c, PatchManifestSchema);
    return c.json(await workspaces.updateSettings(storyId(c), baseRevision, patch));
  });

  app.post('/:storyId/characters', async (c) => {
    const { baseRevision, ...character } = await jsonBody(c, AddCharacterSchema);
    return c.json(await workspaces.addCharacter(storyId(c), baseRevision, character), 201);
  });
  app.patch('/:storyId/characters/:characterId', async (c) => {
    const { baseRevision, ...patch } = await jsonBody(c, PatchCharacterSchema);
    return c.json(await workspaces.updateCharacter(storyId(c), baseRevision, itemId(c, 'characterId'), patch));
  });
  app.delete('/:storyId/characters/:characterId', async (c) =>
    c.json(await workspaces.removeCharacter(storyId(c), baseRevisionQuery(c), itemId(c, 'characterId'))),
  );

  app.post('/:storyId/sections', async (c) => {
    const { baseRevision, ...section } = await jsonBody(c, AddSectionSchema);
    return c.json(await workspaces.addSection(storyId(c), baseRevision, section), 201);
  });
  app.patch('/:storyId/sections/:sectionId', async (c) => {
    const { baseRevision, ...patch } = await jsonBody(c, PatchSectionSchema);
    return c.json(await workspaces.updateSection(storyId(c), baseRevision, itemId(c, 'sectionId'), patch));
  });
  app.delete('/:storyId/sections/:sectionId', async (c) => c.json(await workspaces.removeSection(storyId(c), baseRevisionQuery(c), itemId(c, 'sectionId'))));

  app.post('/:storyId/sources', async (c) => {
    const { baseRevision, ...source } = await jsonBody(c, AddSourceSchema);
    return c.json(await workspaces.addSource(storyId(c), baseRevision, source), 201);
  });
  app.patch('/:storyId/sources/:sourceId', async (c) => {
    const { baseRevision, ...patch } = await jsonBody(c, PatchSourceSchema);
    return c.json(await workspaces.updateSource(storyId(c), baseRevision, itemId(c, 'sourceId'), patch));
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
        // One damaged workspace never hides the others: it is listed with its problem.
        if (KernelStorageError.isInstance(error) && error.code !== 'STORAGE_IO') {
          return { id, name: id, revision: null, characters: 0, sections: 0, sources: 0, problem: error.message };
        }
        if (!StoryError.isInstance(error) || error.code !== 'STORY_MANIFEST_INVALID') throw error;
        const raw = await workspaces.readRaw(id);
        return { id, name: id, revision: raw.revision, characters: 0, sections: 0, sources: 0, problem: error.message };
      }
    }),
  );
}

type ManifestInEffect = { readonly ok: true; readonly manifest: StoryManifest } | { readonly ok: false; readonly problem: string };

// The manifest after this write: the repaired one when the write carries manifest.json (already
// validated by WriteFilesSchema), else the current one, which a hand edit may have broken.
function manifestInEffect(files: Readonly<Record<string, string>>, writes: Readonly<Record<string, string>>): ManifestInEffect {
  try {
    return { ok: true, manifest: parseManifest(writes[WORKSPACE_FILES.manifest] ?? files[WORKSPACE_FILES.manifest] ?? '') };
  } catch (error) {
    if (!StoryError.isInstance(error) || error.code !== 'STORY_MANIFEST_INVALID') throw error;
    return { ok: false, problem: error.message };
  }
}

function checkItemFile(state: ManifestInEffect, path: string): void {
  const [folder, name] = path.split('/');
  if (name === undefined || !(folder === 'characters' || folder === 'sections' || folder === 'sources')) return;
  const itemId = folder === 'characters' ? name : name.replace(/\.md$/, '');
  if (!state.ok) {
    // Without a readable manifest we cannot tell whether the item exists: refuse, write nothing.
    throw new StoryError('STORY_MANIFEST_INVALID', `Repair manifest.json before writing ${path} — ${state.problem}`, { field: 'manifest' });
  }
  if (!state.manifest[folder].some((entry) => entry.id === itemId)) {
    throw new StoryError('STORY_ITEM_NOT_FOUND', `The workspace has no ${folder} "${itemId}"; add it before writing ${path}`, { field: `${folder}.id` });
  }
}
