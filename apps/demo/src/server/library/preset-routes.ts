import { MAX_PRESET_JSON_BYTES } from '@troupe/plugin-actor-assembler';
import { Hono } from 'hono';
import * as z from 'zod';
import type { PresetLibrary } from '../../library/preset-library.js';
import type { PresetDetail } from '../../wire/library.js';
import { ApiError } from '../api-error.js';
import { jsonBody, param } from '../validation.js';
import { LibraryIdSchema } from './library-schemas.js';
import { uploadBody, uploadFileName } from './upload-body.js';

const PrepareBodySchema = z.object({ absorb: z.union([z.enum(['markers', 'all']), z.array(z.string().min(1).max(256)).max(10_000)]).optional() }).strict();

/**
 * Preset routes under `/api/presets`: import a SillyTavern chat-completion preset (the file as the
 * body), list (the built-in default first), view with the importer's warnings and the
 * assembler's `validatePreset` report, delete; prepare for DIO (on import with
 * `?prepareForDio=markers|all`, or later with `POST /:presetId/prepare-for-dio {absorb?}`).
 * @param presets - the library
 * @returns the routes
 */
export function presetLibraryRoutes(presets: PresetLibrary): Hono {
  const app = new Hono();
  const id = (c: Parameters<typeof param>[0]) => param(c, 'presetId', LibraryIdSchema);

  app.get('/', async (c) => c.json(await presets.list()));

  app.post('/', async (c) => {
    const prepare = c.req.query('prepareForDio');
    if (prepare !== undefined && prepare !== 'markers' && prepare !== 'all') {
      throw new ApiError(400, 'INVALID_REQUEST', 'prepareForDio: use "markers" or "all"');
    }
    const bytes = await uploadBody(c, MAX_PRESET_JSON_BYTES);
    return c.json(await presets.import(Buffer.from(bytes).toString('utf8'), uploadFileName(c), prepare !== undefined ? { prepareForDio: prepare } : {}), 201);
  });

  app.post('/:presetId/prepare-for-dio', async (c) => {
    const presetId = id(c);
    const body = await jsonBody(c, PrepareBodySchema);
    return c.json(await presets.prepareForDio(presetId, body.absorb ?? 'markers'));
  });

  app.get('/:presetId', async (c) => c.json((await presets.get(id(c))) satisfies PresetDetail));

  app.delete('/:presetId', async (c) => {
    const presetId = id(c);
    await presets.delete(presetId);
    return c.json({ deleted: true, id: presetId });
  });

  return app;
}
