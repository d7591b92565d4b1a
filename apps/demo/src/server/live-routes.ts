import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Demo } from '../compose.js';
import { param, SessionIdSchema } from './validation.js';

/** Keeps idle live streams open through proxies that close silent connections. */
const KEEP_ALIVE_MS = 20_000;

/**
 * `GET /api/sessions/:sessionId/live` — server-sent events announcing the session's new events
 * from any server on the same database (`TROUPE_DATABASE_URL`): `events` with `{lastId}` (absent
 * after the server's live connection was re-established: re-read). An open chat reloads its
 * messages on each, so a turn another server ran shows up. On the filesystem (one process owns
 * the data folder) the stream says `unsupported` once and ends.
 * @param demo - the composed demo
 * @returns the route (mounted at `/api/sessions`)
 */
export function liveRoutes(demo: Demo): Hono {
  const app = new Hono();
  app.get('/:sessionId/live', (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const watch = demo.storage.watchSession;
    return streamSSE(c, async (stream) => {
      if (!watch) {
        await stream.writeSSE({ event: 'unsupported', data: JSON.stringify({ reason: 'live updates need TROUPE_DATABASE_URL (PostgreSQL)' }) });
        return;
      }
      const controller = new AbortController();
      const closed = new Promise<void>((resolve) => {
        stream.onAbort(() => {
          controller.abort();
          resolve();
        });
      });
      let queue = Promise.resolve();
      const send = (event: string, data: unknown) => {
        queue = queue.then(() => (stream.aborted ? undefined : stream.writeSSE({ event, data: JSON.stringify(data) })));
      };
      try {
        await watch(sessionId, (update) => send('events', update.lastId === undefined ? {} : { lastId: update.lastId }), { signal: controller.signal });
      } catch (error) {
        // The chat still works without live updates; the browser retries the stream later.
        const { code, message } = error as { code?: string; message?: string };
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ code: code ?? 'LIVE_UNAVAILABLE', message: message ?? String(error) }) });
        return;
      }
      // Subscribed: whatever commits from now on is announced (the browser re-reads once on `ready`).
      send('ready', {});
      // A plain interval on purpose: a repeating write for as long as the connection lives, with
      // no deadline, retry or result to wait for — nothing Effect would add (see docs/architecture.md).
      const keepAlive = setInterval(() => {
        queue = queue.then(() => (stream.aborted ? undefined : stream.write(': keep-alive\n\n').then(() => undefined)));
      }, KEEP_ALIVE_MS);
      try {
        await closed;
      } finally {
        clearInterval(keepAlive);
      }
    });
  });
  return app;
}
