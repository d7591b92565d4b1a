import { type ActivatedEventData, LOREBOOK_ACTIVATED_EVENT, importCardLorebook } from '@troupe/plugin-lorebook';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { attachLorebooks, attachedLorebooks } from '../library/session-lorebooks.js';
import { characterBookName } from '../library/session-lore.js';
import type { SessionLore, SessionLorebooks } from '../wire/lore.js';
import { LibraryIdSchema } from './library/library-schemas.js';
import { jsonBody, param, SessionIdSchema } from './validation.js';
import { eventsOfTypes } from './session-reads.js';

const AttachSchema = z.object({ lorebookIds: z.array(LibraryIdSchema).max(100) }).strict();
const MAX_TURNS = 50;

/**
 * World info of a session under `/api/sessions`: which books it uses (the chat character's own
 * book and the attached library books), attaching books, and which entries fired on each turn
 * and why (the `lorebook/activated` events, newest first).
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function loreRoutes(demo: Demo): Hono {
  const app = new Hono();
  const log = demo.storage.sessions;
  const sessionId = (c: Context) => param(c, 'sessionId', SessionIdSchema);

  const view = async (id: string): Promise<SessionLorebooks> => {
    const attachedIds = await attachedLorebooks((key) => log.findLatest(id, key));
    const attached: { id: string; name: string; entries: number }[] = [];
    const missing: string[] = [];
    for (const bookId of attachedIds) {
      const found = await demo.library.lorebooks.get(bookId).catch(() => undefined);
      if (found) attached.push({ id: found.id, name: found.name, entries: found.entries });
      else missing.push(bookId);
    }
    const chat = await demo.library.chats.find(id);
    const character = chat ? await demo.library.characters.get(chat.characterId).catch(() => undefined) : undefined;
    const own = character ? importCardLorebook(character.card.source, { name: characterBookName(character.id) }) : undefined;
    return {
      sessionId: id,
      attached,
      missing,
      characterBook: own && character ? { name: own.book.name, character: character.name, entries: own.book.entries.length } : null,
    };
  };

  app.get('/:sessionId/lorebooks', async (c) => c.json(await view(sessionId(c))));

  app.put('/:sessionId/lorebooks', async (c) => {
    const id = sessionId(c);
    const { lorebookIds } = await jsonBody(c, AttachSchema);
    // Every id must exist before anything is written: a typo never attaches nothing silently.
    for (const bookId of lorebookIds) await demo.library.lorebooks.get(bookId);
    await attachLorebooks(log, id, lorebookIds);
    return c.json(await view(id));
  });

  app.get('/:sessionId/lore', async (c) => {
    const id = sessionId(c);
    const events = await eventsOfTypes(log, id, [LOREBOOK_ACTIVATED_EVENT]);
    const turns = events
      .slice(-MAX_TURNS)
      .reverse()
      .map((event) => ({ turnId: event.turnId, at: event.at, ...(event.data as ActivatedEventData) }));
    return c.json({ sessionId: id, turns } satisfies SessionLore);
  });

  return app;
}
