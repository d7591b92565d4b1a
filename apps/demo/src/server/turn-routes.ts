import { KernelError } from '@troupe/kernel';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { toApiError } from './api-error.js';
import { liveEventMessage, type TurnStreamMessage, turnResultView } from './turn-stream.js';
import { jsonBody, param, SessionIdSchema } from './validation.js';

const TurnBodySchema = z.object({ text: z.string().trim().min(1, 'say something').max(8_000) }).strict();

/**
 * `POST /api/sessions/:sessionId/turns` — plays one turn and streams it as server-sent events:
 * `stage` (story pipeline progress), `progress` (other live events, e.g. `dio/scheduled`),
 * `delta` (reply text as the actor writes it), `reasoning` (a reasoning model's thinking as it
 * arrives), then exactly one `result` or `error`.
 * Closing the connection cancels the turn (nothing is committed).
 * @param demo - the composed demo
 * @param onUnexpected - called with errors that are not the player's fault and the request (for the log)
 * @returns the route (mounted at `/api/sessions`)
 */
export function turnRoutes(demo: Demo, onUnexpected: (error: unknown, request: { method: string; path: string }) => void): Hono {
  const app = new Hono();
  app.post('/:sessionId/turns', async (c) => {
    // Validate before streaming, so bad input is a plain 4xx JSON answer.
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const { text } = await jsonBody(c, TurnBodySchema);
    // A library chat plays its own character; resolved before streaming so a deleted one is a 404.
    const input = await demo.turnInputFor(sessionId, text);
    return streamSSE(c, async (stream) => {
      const controller = new AbortController();
      stream.onAbort(() => controller.abort(new Error('The browser closed the turn stream')));
      // Writes are chained so messages keep the order the harness reported them in.
      let queue = Promise.resolve();
      const send = (message: TurnStreamMessage) => {
        queue = queue.then(() => (stream.aborted ? undefined : stream.writeSSE({ event: message.event, data: JSON.stringify(message.data) })));
      };
      try {
        const result = await demo.harness.runTurn(input, {
          signal: controller.signal,
          onEvent: (event) => send(liveEventMessage(event)),
          onReplyDelta: (delta) => send({ event: 'delta', data: { text: delta } }),
          onReasoningDelta: (delta) => send({ event: 'reasoning', data: { text: delta } }),
        });
        send({ event: 'result', data: turnResultView(result) });
      } catch (error) {
        if (controller.signal.aborted) return;
        const mapped = toApiError(error);
        if (mapped.unexpected) onUnexpected(error, { method: c.req.method, path: c.req.path });
        // A turn failure that is not a request problem still explains itself to the player.
        const body = mapped.unexpected && KernelError.isInstance(error) ? { code: error.code, message: error.message } : mapped.body;
        send({ event: 'error', data: body });
      }
      await queue;
    });
  });
  return app;
}
