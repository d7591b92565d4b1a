import type { WorldInfoEntry } from '@troupe/plugin-lorebook';
import { MAX_LOREBOOK_JSON_CHARS } from '@troupe/plugin-lorebook';
import { Hono } from 'hono';
import type { LorebookLibrary } from '../../library/lorebook-library.js';
import { param } from '../validation.js';
import { LibraryIdSchema } from './library-schemas.js';
import { uploadBody, uploadFileName } from './upload-body.js';

const PREVIEW_CHARS = 240;

/**
 * What the book view shows of an entry: its rules in full, its content as a preview.
 * @param entry - a normalised entry
 * @returns the row
 */
export function entryRow(entry: WorldInfoEntry) {
  return {
    uid: entry.uid,
    comment: entry.comment,
    keys: entry.keys,
    secondaryKeys: entry.selective ? entry.secondaryKeys : [],
    selectiveLogic: entry.selectiveLogic,
    constant: entry.constant,
    disabled: entry.disabled,
    position: entry.position,
    order: entry.order,
    depth: entry.depth,
    role: entry.role,
    probability: entry.useProbability ? entry.probability : 100,
    groups: entry.groups,
    sticky: entry.sticky,
    cooldown: entry.cooldown,
    delay: entry.delay,
    contentChars: entry.content.length,
    preview: entry.content.length > PREVIEW_CHARS ? `${entry.content.slice(0, PREVIEW_CHARS - 1)}…` : entry.content,
  };
}

/**
 * Lorebook routes under `/api/lorebooks`: import a SillyTavern world-info file (the file as the
 * body), list, view (entries with their rules), delete.
 * @param lorebooks - the library
 * @returns the routes
 */
export function lorebookRoutes(lorebooks: LorebookLibrary): Hono {
  const app = new Hono();
  const id = (c: Parameters<typeof param>[0]) => param(c, 'lorebookId', LibraryIdSchema);

  app.get('/', async (c) => c.json(await lorebooks.list()));

  app.post('/', async (c) => {
    // UTF-8 is at most 4 bytes per character: the byte cap keeps the character cap reachable.
    const bytes = await uploadBody(c, MAX_LOREBOOK_JSON_CHARS);
    const { book, ...summary } = await lorebooks.import(Buffer.from(bytes).toString('utf8'), uploadFileName(c));
    return c.json({ ...summary, entryRows: book.entries.map(entryRow) }, 201);
  });

  app.get('/:lorebookId', async (c) => {
    const { book, ...summary } = await lorebooks.get(id(c));
    return c.json({ ...summary, entryRows: book.entries.map(entryRow) });
  });

  app.delete('/:lorebookId', async (c) => {
    const lorebookId = id(c);
    await lorebooks.delete(lorebookId);
    return c.json({ deleted: true, id: lorebookId });
  });

  return app;
}
