import { randomUUID } from 'node:crypto';
import { KernelError, type RunTurnOptions, TURN_COMMITTED, type TurnResult } from '@troupe/kernel';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as z from 'zod';
import type { Demo } from '../compose.js';
import { nextStepRequest } from '../next-step-request.js';
import { ApiError, toApiError } from './api-error.js';
import { chatMessages } from './session-view.js';
import { chatEvents, eventsOfTypes } from './session-reads.js';
import { liveEventMessage, type TurnStreamMessage, turnResultView } from './turn-stream.js';
import { jsonBody, param, PlayerLineSchema, SessionIdSchema, TurnIdSchema } from './validation.js';

// `turnId`: the retry of a turn that failed before its commit (see `freshTurnId`).
const TurnBodySchema = z.object({ text: PlayerLineSchema, turnId: TurnIdSchema.optional() }).strict();

/**
 * The id a new turn plays under: the one the player's retry names, or a fresh one. A retry keeps
 * the failed turn's id so what that turn prepared and logged (a story draft, keyed by turn, step,
 * workspace and revision) is replayed from the session log instead of being prepared again. A
 * committed id is refused: the kernel would commit a second step 0 of it in the old turn's place.
 * @throws {ApiError} TURN_EXISTS (409) for a turn committed in the session, visible or removed
 */
async function freshTurnId(demo: Demo, sessionId: string, retried: string | undefined): Promise<string> {
  if (retried === undefined) return randomUUID();
  const events = await eventsOfTypes(demo.storage.sessions, sessionId, [TURN_COMMITTED]);
  if (events.some((event) => event.turnId === retried)) {
    throw new ApiError(409, 'TURN_EXISTS', `Turn "${retried}" was already played in session "${sessionId}"; send the line without a turnId to play a new turn`);
  }
  return retried;
}

/**
 * `POST /api/sessions/:sessionId/turns` — plays one turn and streams it as server-sent events:
 * `stage` (story pipeline progress), `progress` (other live events, e.g. `dio/scheduled`),
 * `delta` (reply text as the actor writes it), `reasoning` (a reasoning model's thinking as it
 * arrives), then exactly one `result` or `error` (which names the turn's `turnId`: sending the
 * same line again with it replays what the failed turn prepared).
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
    const body = await jsonBody(c, TurnBodySchema);
    // Picked here, not by the kernel, so a failed turn's `error` can name it for the retry.
    const turnId = await freshTurnId(demo, sessionId, body.turnId);
    // A library chat plays its own character; resolved before streaming so a deleted one is a 404.
    const input = await demo.turnInputFor(sessionId, body.text, { turnId });
    return streamTurn(c, (options) => demo.harness.runTurn(input, options), onUnexpected, { turnId });
  });

  // Regenerate: a new step of the last visible turn, with the same (possibly edited) input.
  app.post('/:sessionId/turns/:turnId/regenerate', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    const turnId = param(c, 'turnId', TurnIdSchema);
    // Checked before streaming, so a wrong turn is a plain 404. The kernel checks again and picks
    // the step in the session's queue: two tabs regenerating at once get steps of their own.
    const last = chatMessages(await chatEvents(demo.storage.sessions, sessionId)).at(-1);
    if (!last) throw new ApiError(404, 'KERNEL_TURN_NOT_FOUND', `Session "${sessionId}" has no reply to regenerate`);
    if (last.turnId !== turnId) throw new ApiError(404, 'KERNEL_TURN_NOT_FOUND', `Only the last reply can be regenerated: "${turnId}" is not the last turn of "${sessionId}"`);
    const request = nextStepRequest(await demo.turnInputFor(sessionId, last.input), turnId);
    return streamTurn(c, (options) => demo.harness.regenerateTurn(request, options), onUnexpected);
  });

  // Continue: the actor extends the last visible reply (a new step holding the joined reply).
  app.post('/:sessionId/continue', async (c) => {
    const sessionId = param(c, 'sessionId', SessionIdSchema);
    // Checked before streaming, so a chat with nothing to continue is a plain 404.
    if (chatMessages(await chatEvents(demo.storage.sessions, sessionId)).length === 0) throw new ApiError(404, 'KERNEL_TURN_NOT_FOUND', `Session "${sessionId}" has no reply to continue`);
    const request = nextStepRequest(await demo.turnInputFor(sessionId, '…'));
    return streamTurn(c, (options) => demo.harness.continueTurn(request, options), onUnexpected);
  });
  return app;
}

/**
 * Streams one harness run as server-sent events (see {@link turnRoutes}); closing the connection
 * cancels it. `failed` is added to an `error` message (a new turn names its id, for the retry).
 */
function streamTurn(
  c: Context,
  run: (options: RunTurnOptions) => Promise<TurnResult>,
  onUnexpected: (error: unknown, request: { method: string; path: string }) => void,
  failed: { readonly turnId?: string } = {},
): Response {
  return streamSSE(c, async (stream) => {
      const controller = new AbortController();
      stream.onAbort(() => controller.abort(new Error('The browser closed the turn stream')));
      // Writes are chained so messages keep the order the harness reported them in.
      let queue = Promise.resolve();
      const send = (message: TurnStreamMessage) => {
        queue = queue.then(() => (stream.aborted ? undefined : stream.writeSSE({ event: message.event, data: JSON.stringify(message.data) })));
      };
      try {
        const result = await run({
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
        send({ event: 'error', data: { ...body, ...failed } });
      }
      await queue;
    });
}
