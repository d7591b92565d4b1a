import { MAX_PRESET_JSON_BYTES } from '@troupe/plugin-actor-assembler';
import { Hono } from 'hono';
import type { PresetLibrary } from '../../library/preset-library.js';
import { param } from '../validation.js';
import { LibraryIdSchema } from './library-schemas.js';
import { uploadBody, uploadFileName } from './upload-body.js';

/**
 * Preset routes under `/api/presets`: import a SillyTavern chat-completion preset (the file as the
 * body), list (the built-in default first), view with the importer's warnings and the
 * assembler's `validatePreset` report, delete.
 * @param presets - the library
 * @returns the routes
 */
export function presetLibraryRoutes(presets: PresetLibrary): Hono {
  const app = new Hono();
  const id = (c: Parameters<typeof param>[0]) => param(c, 'presetId', LibraryIdSchema);

  app.get('/', async (c) => c.json(await presets.list()));

  app.post('/', async (c) => {
    const bytes = await uploadBody(c, MAX_PRESET_JSON_BYTES);
    return c.json(await presets.import(Buffer.from(bytes).toString('utf8'), uploadFileName(c)), 201);
  });

  app.get('/:presetId', async (c) => c.json(await presets.get(id(c))));

  app.delete('/:presetId', async (c) => {
    const presetId = id(c);
    await presets.delete(presetId);
    return c.json({ deleted: true, id: presetId });
  });

  return app;
}
