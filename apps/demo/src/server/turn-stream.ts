import type { SessionEvent, TurnResult } from '@troupe/kernel';
import * as z from 'zod';
import type { ApiProblem } from '../wire/api-problem.js';
import type { StageProgress, TurnStreamError } from '../wire/turn-stream.js';

const StageDataSchema = z.object({ stage: z.string(), item: z.string().optional(), ok: z.boolean().optional(), error: z.object({ code: z.string(), message: z.string() }).optional() });

/** One server-sent event of `POST /api/sessions/:id/turns`: the SSE `event` name and its JSON data. */
export type TurnStreamMessage =
  | { readonly event: 'stage'; readonly data: StageProgress }
  | { readonly event: 'progress'; readonly data: { readonly type: string; readonly data: unknown } }
  | { readonly event: 'delta'; readonly data: { readonly text: string } }
  | { readonly event: 'reasoning'; readonly data: { readonly text: string } }
  | { readonly event: 'result'; readonly data: TurnResultView }
  | { readonly event: 'error'; readonly data: TurnStreamError };

/**
 * The final `result` message: the reply, the actor's prepared messages and the turn's events (in the
 * kernel's types; the browser reads it as the wire `TurnResultView`, which wire-conformance.ts checks this fits).
 */
export interface TurnResultView {
  readonly turnId: string;
  readonly step: number;
  readonly reply: string;
  /** The model's reasoning, when it produced any (shown collapsed, never part of the reply). */
  readonly reasoning?: string;
  readonly prepared: TurnResult['prepared'];
  readonly events: readonly Pick<SessionEvent, 'id' | 'type' | 'at'>[];
  readonly postReviewErrors: readonly ApiProblem[];
}

/**
 * Turns a live turn event into the message the chat view gets. Story stage requests and results
 * become `stage` progress (without the full model messages, which stay in the session log);
 * every other event is forwarded as `progress` with its type and data.
 * @param event - what the harness reported through `onEvent`
 * @returns the stream message
 */
export function liveEventMessage(event: { readonly type: string; readonly data: unknown }): TurnStreamMessage {
  if (event.type === 'agent-rp/story-stage-request' || event.type === 'agent-rp/story-stage-result') {
    const data = StageDataSchema.safeParse(event.data);
    if (data.success) {
      const { stage, item, ok, error } = data.data;
      const status = event.type === 'agent-rp/story-stage-request' ? 'started' : ok ? 'done' : 'failed';
      return { event: 'stage', data: { stage, ...(item === undefined ? {} : { item }), status, ...(error === undefined ? {} : { error }) } };
    }
  }
  return { event: 'progress', data: { type: event.type, data: event.data } };
}

/**
 * The `result` message of a finished turn.
 * @param result - what `runTurn` resolved with
 * @returns the view sent to the browser
 */
export function turnResultView(result: TurnResult): TurnResultView {
  return {
    turnId: result.turnId,
    step: result.step,
    reply: result.reply,
    ...(result.reasoning ? { reasoning: result.reasoning } : {}),
    prepared: result.prepared,
    events: result.events.map(({ id, type, at }) => ({ id, type, at })),
    postReviewErrors: result.postReviewErrors.map((error) => ({ code: error.code, message: error.message })),
  };
}
