import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Demo } from '../compose.js';
import { DioProxy } from './dio-proxy.js';
import { latestDioLookup, latestDioTask } from './dio-view.js';
import { param, RequirementIdSchema, SessionIdSchema } from './validation.js';

/**
 * The DIO view of a session, under `/api/sessions/:sessionId/dio`: the active compiled prompt
 * (version, changeset, hash), the latest task status from the session's `dio/*` events, the last
 * lookup, and the active requirements with revoke. The service is called with the demo player's
 * authorization on the server; the token never reaches the browser.
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function dioRoutes(demo: Demo): Hono {
  const app = new Hono();
  const proxy = new DioProxy(demo.dio);
  const sessionId = (c: Context) => param(c, 'sessionId', SessionIdSchema);

  app.get('/:sessionId/dio', async (c) => {
    const id = sessionId(c);
    const signal = c.req.raw.signal;
    const targetPromptId = await demo.dioTargetFor(id);
    const [events, activePrompt, requirements] = await Promise.all([
      demo.storage.sessions.read(id),
      proxy.activePrompt(id, signal, targetPromptId),
      proxy.requirements(id, signal, targetPromptId),
    ]);
    return c.json({
      sessionId: id,
      targetPromptId,
      activePrompt,
      task: latestDioTask(events),
      lastLookup: latestDioLookup(events),
      requirements,
    });
  });

  app.delete('/:sessionId/dio/requirements/:requirementId', async (c) => {
    const id = sessionId(c);
    const requirementId = param(c, 'requirementId', RequirementIdSchema);
    return c.json(await proxy.revoke(id, requirementId, c.req.raw.signal, await demo.dioTargetFor(id)));
  });

  return app;
}
