import { Hono } from 'hono';
import * as z from 'zod';
import { CharacterEditSchema, type CharacterLibrary, type LibraryCharacter, MAX_CARD_FILE_BYTES } from '../../library/character-library.js';
import type { CharacterDetail } from '../../wire/library.js';
import { jsonBody, param } from '../validation.js';
import { BaseRevisionSchema, LibraryIdSchema } from './library-schemas.js';
import { uploadBody, uploadFileName } from './upload-body.js';

const EditBodySchema = z.object({ baseRevision: BaseRevisionSchema, fields: CharacterEditSchema }).strict();

/**
 * What the character view shows: the summary, every editable card field, the card prompts, the
 * lorebook size and the import notes. Text goes out as JSON strings; the page renders it as text.
 * @param character - a library character
 * @returns the view
 */
export function characterView(character: LibraryCharacter): CharacterDetail {
  const { card, ...summary } = character;
  const c = card.character;
  const data = card.source.data as Record<string, unknown>;
  return {
    ...summary,
    fields: {
      name: c.name,
      nickname: typeof data['nickname'] === 'string' ? data['nickname'] : '',
      description: c.description,
      personality: c.personality,
      scenario: c.scenario,
      first_mes: c.firstMessage,
      alternate_greetings: c.alternateGreetings,
      mes_example: c.exampleMessages,
      creator_notes: c.creatorNotes,
      system_prompt: card.cardPrompts.systemPrompt,
      post_history_instructions: card.cardPrompts.postHistoryInstructions,
      tags: c.tags,
      creator: c.creator,
      character_version: c.characterVersion,
    },
    lorebookEntries: Array.isArray(c.characterBook?.['entries']) ? (c.characterBook['entries'] as unknown[]).length : 0,
    specVersion: card.specVersion,
  };
}

/**
 * Character library routes under `/api/characters`: import a card file (raw body), list, view,
 * edit, delete, avatar, export as V3 PNG or JSON.
 * @param characters - the library
 * @returns the routes
 */
export function characterRoutes(characters: CharacterLibrary): Hono {
  const app = new Hono();
  const id = (c: Parameters<typeof param>[0]) => param(c, 'characterId', LibraryIdSchema);

  app.get('/', async (c) => c.json(await characters.list()));

  app.post('/', async (c) => {
    const bytes = await uploadBody(c, MAX_CARD_FILE_BYTES);
    const character = await characters.import(bytes, uploadFileName(c));
    return c.json(characterView(character), 201);
  });

  app.get('/:characterId', async (c) => c.json(characterView(await characters.get(id(c)))));

  app.patch('/:characterId', async (c) => {
    const characterId = id(c);
    const { baseRevision, fields } = await jsonBody(c, EditBodySchema);
    return c.json(characterView(await characters.update(characterId, baseRevision, fields)));
  });

  app.delete('/:characterId', async (c) => {
    const characterId = id(c);
    await characters.delete(characterId);
    return c.json({ deleted: true, id: characterId });
  });

  app.get('/:characterId/avatar', async (c) => {
    const avatar = await characters.avatar(id(c));
    if (!avatar) return c.json({ code: 'NOT_FOUND', message: 'This character has no picture' }, 404);
    // Only raster types are stored (sniffed on import), and nosniff keeps the browser from guessing.
    return c.body(new Uint8Array(avatar.bytes), 200, { 'content-type': avatar.mime, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
  });

  app.get('/:characterId/export.png', async (c) => {
    const characterId = id(c);
    const png = await characters.exportPng(characterId);
    return c.body(new Uint8Array(png), 200, { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${characterId}.png"` });
  });

  app.get('/:characterId/export.json', async (c) => {
    const characterId = id(c);
    const card = await characters.exportJson(characterId);
    return c.body(JSON.stringify(card, null, 2), 200, { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="${characterId}.json"` });
  });

  return app;
}
