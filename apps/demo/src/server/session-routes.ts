import { formatIssues, KernelStorageError } from '@troupe/kernel';
import { clearStoryWorkspace, readStoryWorkspaceSelection, selectStoryWorkspace } from '@troupe/plugin-story';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { ApiError } from './api-error.js';
import { chatMessages, damagedSession, SUMMARY_EVENT_TYPES, summarizeSession } from './session-view.js';
import { chatEvents, eventsOfTypes } from './session-reads.js';
import { jsonBody, param, SessionIdSchema, StoryIdSchema } from './validation.js';

const SelectStorySchema = z.object({ storyId: StoryIdSchema }).strict();
const AfterSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'after: an event id such as e12');

/**
 * Session routes under `/api/sessions`: list, messages, events, export, and the story
 * workspace selection (enable / clear). Sessions come into being with their first event.
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function sessionRoutes(demo: Demo): Hono {
  const app = new Hono();
  const log = demo.storage.sessions;
  const sessionId = (c: Context) => param(c, 'sessionId', SessionIdSchema);

  // A session with no events does not exist yet: 404, which a new chat treats as empty.
  const existingEvents = async (id: string) => {
    const events = await log.read(id);
    if (events.length === 0) throw new ApiError(404, 'SESSION_NOT_FOUND', `There is no session "${id}" yet: play a turn to start it`);
    return events;
  };
  // The chat's events only (a long chat's prompt records are never read for its messages); a
  // session with none is read whole once to tell "no turns yet" from "no such session".
  const existingChatEvents = async (id: string) => {
    const events = await chatEvents(log, id);
    return events.length > 0 ? events : existingEvents(id);
  };

  // One damaged session never hides the others: it is listed with its problem.
  app.get('/', async (c) => {
    const ids = await log.list();
    const sessions = await Promise.all(
      ids.map(async (id) => {
        try {
          return summarizeSession(id, await eventsOfTypes(log, id, SUMMARY_EVENT_TYPES));
        } catch (error) {
          if (!isDamaged(error)) throw error;
          return damagedSession(id, error.message);
        }
      }),
    );
    return c.json({ sessions });
  });

  app.delete('/:sessionId', async (c) => {
    const id = sessionId(c);
    if (!(await log.delete(id))) throw new ApiError(404, 'SESSION_NOT_FOUND', `There is no session "${id}"`);
    return c.json({ deleted: true, id });
  });

  app.get('/:sessionId/messages', async (c) => {
    const id = sessionId(c);
    return c.json({ sessionId: id, messages: chatMessages(await existingChatEvents(id)) });
  });

  app.get('/:sessionId/events', async (c) => {
    const id = sessionId(c);
    const afterRaw = c.req.query('after');
    const after = afterRaw === undefined ? undefined : AfterSchema.safeParse(afterRaw);
    if (after && !after.success) throw new ApiError(400, 'INVALID_ID', `after: ${formatIssues(after.error, { root: 'id' })}`);
    await existingEvents(id);
    const events = await log.read(id, after ? { afterId: after.data } : {});
    return c.json({ sessionId: id, events });
  });

  // A damaged log still exports every intact event; the header lists the lines left out.
  app.get('/:sessionId/export', async (c) => {
    const id = sessionId(c);
    const headers = { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="${id}.jsonl"` };
    try {
      await existingEvents(id);
      return c.body(await log.export(id), 200, { ...headers, 'x-troupe-skipped-lines': '' });
    } catch (error) {
      if (!isDamaged(error)) throw error;
      const { jsonl, skippedLines } = await log.salvage(id);
      return c.body(jsonl, 200, { ...headers, 'x-troupe-skipped-lines': skippedLines.join(',') });
    }
  });

  app.get('/:sessionId/story', async (c) => {
    const id = sessionId(c);
    const storyId = await readStoryWorkspaceSelection((key) => log.findLatest(id, key));
    return c.json({ sessionId: id, storyId: storyId ?? null });
  });

  app.put('/:sessionId/story', async (c) => {
    const id = sessionId(c);
    const { storyId } = await jsonBody(c, SelectStorySchema);
    await demo.workspaces.read(storyId); // 404 for a workspace that does not exist
    await selectStoryWorkspace(log, id, storyId);
    return c.json({ sessionId: id, storyId });
  });

  app.delete('/:sessionId/story', async (c) => {
    const id = sessionId(c);
    await clearStoryWorkspace(log, id);
    return c.json({ sessionId: id, storyId: null });
  });

  return app;
}

function isDamaged(error: unknown): error is KernelStorageError {
  return KernelStorageError.isInstance(error) && error.code === 'SESSION_CORRUPT';
}
