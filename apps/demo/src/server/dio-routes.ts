import type { Context } from 'hono';
import { Hono } from 'hono';
import type { Demo } from '../compose.js';
import { DioProxy } from './dio-proxy.js';
import { DioError, DioSessionRequirementsToken } from '@troupe/plugin-dio';
import { ApiError } from './api-error.js';
import type { ApiProblem } from '../wire/api-problem.js';
import type { DioView } from '../wire/dio.js';
import { dioChanges, latestDioLookup, latestDioTask } from './dio-view.js';
import { param, RequirementIdSchema, SessionIdSchema } from './validation.js';

/**
 * The DIO view of a session, under `/api/sessions/:sessionId/dio`: the active compiled prompt
 * (version, changeset, hash), the latest task status from the session's `dio/*` events, the last
 * lookup, the active requirements with revoke, and the changes made outside turns (revocations,
 * the fork of a branched session) as the session log records them. The service is called with the demo player's
 * authorization on the server; the token never reaches the browser.
 * @param demo - the composed demo
 * @returns the routes (mounted at `/api/sessions`)
 */
export function dioRoutes(demo: Demo): Hono {
  const app = new Hono();
  // The view is polled while open: a slow service may hold it about as long as a turn's lookup, not 5 s.
  const proxy = new DioProxy(demo.dio, { timeoutMs: VIEW_TIMEOUT_MS });
  const sessionId = (c: Context) => param(c, 'sessionId', SessionIdSchema);

  app.get('/:sessionId/dio', async (c) => {
    const id = sessionId(c);
    const signal = c.req.raw.signal;
    const targetPromptId = await demo.dioTargetFor(id);
    const [events, activePrompt, requirements] = await Promise.all([
      demo.storage.sessions.read(id),
      askService(() => proxy.activePrompt(id, signal, targetPromptId), signal),
      askService(() => proxy.requirements(id, signal, targetPromptId), signal),
    ]);
    // What the session log knows stands on its own; the service's part says whether it answered.
    const failure = activePrompt.error ?? requirements.error;
    return c.json({
      sessionId: id,
      targetPromptId,
      activePrompt: activePrompt.value ?? null,
      task: latestDioTask(events),
      lastLookup: latestDioLookup(events),
      requirements: requirements.value ?? [],
      changes: dioChanges(events),
      service: failure ? { reachable: false, error: failure } : { reachable: true },
    } satisfies DioView);
  });

  app.delete('/:sessionId/dio/requirements/:requirementId', async (c) => {
    const id = sessionId(c);
    const requirementId = param(c, 'requirementId', RequirementIdSchema);
    // Through the plugin, so the revocation is recorded in the session log (dio/requirement-revoked).
    const requirements = demo.harness.resolve(DioSessionRequirementsToken);
    const signal = c.req.raw.signal;
    try {
      const result = await requirements.revoke({ sessionId: id, requirementId, targetPromptId: await demo.dioTargetFor(id), userId: demo.dio.userId, authorization: demo.dio.authorization, signal });
      const { ok, promptChanged, versionId, compiledPromptSha256 } = result;
      return c.json({ ok, promptChanged, ...(versionId === undefined ? {} : { versionId }), ...(compiledPromptSha256 === undefined ? {} : { compiledPromptSha256 }) });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw revokeFailure(error, demo.dio.url);
    }
  });

  return app;
}

/** How long the view waits for the DIO service (each of its two calls, in parallel). */
export const VIEW_TIMEOUT_MS = 1_500;

// A service failure becomes the view's `service.error`; a cancelled request and bugs still throw.
async function askService<T>(call: () => Promise<T>, signal: AbortSignal): Promise<{ value?: T; error?: ApiProblem }> {
  try {
    return { value: await call() };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (ApiError.isInstance(error)) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

// The service's "no such requirement" stays a 404 for the player; anything else is the service's fault (502).
function revokeFailure(error: unknown, url: string): unknown {
  if (!DioError.isInstance(error)) return error;
  if (error.status === 404) return new ApiError(404, 'REQUIREMENT_NOT_FOUND', 'No such active requirement (already revoked?)', { cause: error });
  return new ApiError(502, 'DIO_UNAVAILABLE', `The DIO service at ${url} did not revoke the requirement: ${error.message}`, { cause: error });
}
