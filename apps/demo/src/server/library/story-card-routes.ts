import { Hono } from 'hono';
import * as z from 'zod';
import { characterFromCard } from '../../cli/commands/character-from-card.js';
import type { Demo } from '../../compose.js';
import { jsonBody, param, StoryIdSchema } from '../validation.js';
import { BaseRevisionSchema, LibraryIdSchema } from './library-schemas.js';

const FromLibrarySchema = z.object({ baseRevision: BaseRevisionSchema, characterId: LibraryIdSchema, personaId: LibraryIdSchema.optional() }).strict();

/**
 * `POST /api/stories/:storyId/characters/from-library` — adds a library character to a story
 * workspace: persona.md from its description, personality and scenario with `{{char}}` /
 * `{{user}}` put in (the persona's name, default persona when none is given), an id derived from
 * any name.
 * @param demo - the composed demo
 * @returns the route (mounted at `/api/stories`)
 */
export function storyCardRoutes(demo: Demo): Hono {
  const app = new Hono();
  app.post('/:storyId/characters/from-library', async (c) => {
    const storyId = param(c, 'storyId', StoryIdSchema);
    const body = await jsonBody(c, FromLibrarySchema);
    const library = demo.library;
    const character = await library.characters.get(body.characterId);
    const persona = await library.personas.get(body.personaId ?? (await library.personas.defaultId()));
    const workspace = await demo.workspaces.read(storyId);
    const taken = new Set(workspace.manifest.characters.map((entry) => entry.id));
    const entry = characterFromCard(character.card.character, { taken, user: persona.name });
    return c.json(await demo.workspaces.addCharacter(storyId, body.baseRevision, entry), 201);
  });
  return app;
}
