import { Hono } from 'hono';
import * as z from 'zod';
import { checkPresetFile } from '../presets/preset-check.js';
import { jsonBody } from './validation.js';

const CheckBodySchema = z
  .object({
    /** The preset file's parsed JSON (SillyTavern or Troupe). */
    preset: z.record(z.string(), z.unknown()),
    absorb: z.union([z.enum(['markers', 'all']), z.array(z.string().min(1).max(256)).max(10_000)]).optional(),
  })
  .strict();

/**
 * Preset routes under `/api/presets`: `POST /check` with `{preset, absorb?}` answers the
 * {@link PresetCheck}: import warnings, the DIO pre-flight as imported (the prompt DIO replaces or
 * why it cannot, and every prompt still carrying character text), and what preparing it for DIO
 * does (report, pre-flight and the prepared preset). Nothing is stored.
 * @returns the routes (mounted at `/api/presets`)
 */
export function presetRoutes(): Hono {
  const app = new Hono();
  app.post('/check', async (c) => {
    const body = await jsonBody(c, CheckBodySchema);
    return c.json(checkPresetFile(body.preset, body.absorb !== undefined ? { absorb: body.absorb } : {}));
  });
  return app;
}
