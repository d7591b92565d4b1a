import * as z from 'zod';
import { KernelError } from '../errors.js';
import { ScenarioSchema, type TurnInput, TurnInputSchema } from './turn-input.js';
import { parseChatControlRequest } from './chat-controls.js';
import type { HistoryCache } from './history-cache.js';
import type { TurnContinuation } from './run-turn.js';

/** Schema of {@link ContinueTurnRequest}. */
export const ContinueTurnRequestSchema = z
  .object({
    sessionId: TurnInputSchema.shape.sessionId,
    /** The turn to continue; it must be the last visible one (default: the last visible turn). */
    turnId: TurnInputSchema.shape.turnId,
    userId: TurnInputSchema.shape.userId,
    authorization: TurnInputSchema.shape.authorization,
    scenario: ScenarioSchema.optional(),
    attributes: TurnInputSchema.shape.attributes,
  })
  .strict();

/** Asks the actor to extend the last reply of a session. */
export type ContinueTurnRequest = Omit<TurnInput, 'text' | 'step'>;

/**
 * Plans a `continue`: the last visible turn runs again as a new step (one past its highest),
 * with the kept step's visible reply as the start of the actor's answer. The committed step's
 * reply is that reply with the continuation appended, so swiping back to the step before still
 * shows the reply as it was, and plugins see an ordinary regenerated step.
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND
 */
export async function planContinuation(services: { readonly histories: HistoryCache }, raw: unknown): Promise<{ input: TurnInput; continuation: TurnContinuation }> {
  const { turnId: wanted, ...rest } = parseChatControlRequest(ContinueTurnRequestSchema, raw, 'continue');
  const turns = [...(await services.histories.turns(rest.sessionId)).values()];
  const last = turns[turns.length - 1];
  if (!last) throw new KernelError('KERNEL_TURN_NOT_FOUND', `Session "${rest.sessionId}" has no committed reply to continue`, { details: { sessionId: rest.sessionId } });
  if (wanted !== undefined && wanted !== last.turnId) {
    throw new KernelError('KERNEL_TURN_NOT_FOUND', `Only the last reply can be continued: "${wanted}" is not the last visible turn of "${rest.sessionId}"`, {
      details: { sessionId: rest.sessionId, turnId: wanted, lastTurnId: last.turnId },
    });
  }
  const nextStep = Math.max(...last.steps.map((step) => step.step)) + 1;
  const input: TurnInput = { ...stripUndefined(rest), text: last.input, turnId: last.turnId, step: nextStep };
  return { input, continuation: { step: last.step, reply: last.reply } };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
