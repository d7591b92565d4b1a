import type { Logger } from '@troupe/kernel';
import { Hono } from 'hono';
import type { Demo } from '../compose.js';
import { ApiError, toApiError } from './api-error.js';
import { dioRoutes } from './dio-routes.js';
import { type ErrorLogSink, serverErrorLine } from './error-log.js';
import { hostAllowed } from './host-check.js';
import { liveRoutes } from './live-routes.js';
import { loreRoutes } from './lore-routes.js';
import { libraryRoutes } from './library/library-routes.js';
import { presetRoutes } from './preset-routes.js';
import { promptRoutes } from './prompt-routes.js';
import { sessionRoutes } from './session-routes.js';
import { chatControlRoutes } from './chat-control-routes.js';
import { staticFiles } from './static-files.js';
import { storyRoutes } from './story-routes.js';
import { turnRoutes } from './turn-routes.js';

/** Options of {@link createWebApp}. */
export interface WebAppOptions {
  /** Absolute path of the built web app (Vite's output). */
  readonly staticDir: string;
  /** Host names the server answers to (others get 403, against DNS rebinding). */
  readonly allowedHosts: readonly string[];
  readonly logger: Logger;
  /** Gets one line per 5xx answer and per turn that failed unexpectedly; omit to log nothing. */
  readonly errorLog?: ErrorLogSink;
}

/**
 * The web app: the JSON API under `/api` and the built browser UI for every other GET.
 * Errors are `{code, message}` with the matching status.
 * @param demo - the composed demo
 * @param options - static directory, allowed hosts, logger
 * @returns the Hono app
 */
export function createWebApp(demo: Demo, options: WebAppOptions): Hono {
  const app = new Hono();
  // The error behind a 5xx answer, for the one log line written once the answer is known.
  const causes = new WeakMap<Request, unknown>();
  const onUnexpected = (error: unknown, request?: { method: string; path: string }) => {
    options.logger.error('web request failed', { error: error instanceof Error ? error.stack : String(error) });
    // A turn fails inside its 200 event stream: it gets its own line.
    if (request) options.errorLog?.(serverErrorLine(request, 500, error));
  };

  app.onError((error, c) => {
    const mapped = toApiError(error);
    if (mapped.unexpected) {
      options.logger.error('web request failed', { error: error instanceof Error ? error.stack : String(error) });
      causes.set(c.req.raw, error);
    }
    return c.json(mapped.body, mapped.status);
  });

  app.use('*', async (c, next) => {
    await next();
    if (c.res.status >= 500) options.errorLog?.(serverErrorLine({ method: c.req.method, path: c.req.path }, c.res.status, causes.get(c.req.raw)));
  });

  const allowed = options.allowedHosts;
  app.use('*', async (c, next) => {
    if (!hostAllowed(c.req.header('host'), allowed)) throw new ApiError(403, 'FORBIDDEN_HOST', `This server only answers to ${allowed.join(', ')}`);
    await next();
  });

  app.get('/api/health', (c) => c.json({ ok: true, modelId: demo.modelId, offline: demo.modelId === 'offline', dataDir: demo.dataDir, characterName: demo.characterName }));
  app.route('/api', libraryRoutes(demo));
  app.route('/api/stories', storyRoutes(demo.workspaces));
  app.route('/api/sessions', sessionRoutes(demo));
  app.route('/api/sessions', chatControlRoutes(demo));
  app.route('/api/sessions', turnRoutes(demo, (error, request) => onUnexpected(error, request)));
  app.route('/api/sessions', dioRoutes(demo));
  app.route('/api/sessions', loreRoutes(demo));
  app.route('/api/sessions', promptRoutes(demo));
  app.route('/api/sessions', liveRoutes(demo));
  app.route('/api/presets', presetRoutes());
  app.all('/api/*', (c) => c.json({ code: 'NOT_FOUND', message: `No API route ${c.req.method} ${new URL(c.req.url).pathname}` }, 404));
  app.get('*', staticFiles(options.staticDir));
  return app;
}
