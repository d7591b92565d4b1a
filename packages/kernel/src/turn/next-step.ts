import * as z from 'zod';
import { KernelError } from '../errors.js';
import { parseChatControlRequest } from './chat-controls.js';
import type { HistoryCache } from './history-cache.js';
import { ScenarioSchema, type TurnInput, TurnInputSchema } from './turn-input.js';

/** Schema of {@link NextStepRequest}. */
export const NextStepRequestSchema = z
  .object({
    sessionId: TurnInputSchema.shape.sessionId,
    /** The turn to run again; it must be the last visible one (default: the last visible turn). */
    turnId: TurnInputSchema.shape.turnId,
    userId: TurnInputSchema.shape.userId,
    authorization: TurnInputSchema.shape.authorization,
    scenario: ScenarioSchema.optional(),
    attributes: TurnInputSchema.shape.attributes,
  })
  .strict();

/** Runs the last visible turn of a session again (`continue`, `regenerate`): the turn input without its line and step. */
export type NextStepRequest = Omit<TurnInput, 'text' | 'step'>;

/** The last visible turn as a next step plans it. */
export interface PlannedNextStep {
  /** The turn input of the new step: the turn's visible (possibly edited) line, one past its highest step. */
  readonly input: TurnInput;
  /** The step the player sees now and its visible reply. */
  readonly kept: { readonly step: number; readonly reply: string };
}

/**
 * Plans a new step of the last visible turn. Called inside the session's turn queue, so two
 * requests sent at once get consecutive steps, and a request queued behind a new turn is refused
 * (its turn is no longer the last): a step number worked out before the queue would let the
 * later commit replace the earlier one.
 * @param services - the history cache
 * @param raw - the request ({@link NextStepRequestSchema})
 * @param verb - what the player asked for, for messages ('continue', 'regenerate')
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND
 */
export async function planNextStep(services: { readonly histories: HistoryCache }, raw: unknown, verb: 'continue' | 'regenerate'): Promise<PlannedNextStep> {
  const { turnId: wanted, ...rest } = parseChatControlRequest(NextStepRequestSchema, raw, verb);
  const turns = [...(await services.histories.turns(rest.sessionId)).values()];
  const last = turns[turns.length - 1];
  const what = verb === 'continue' ? 'continued' : 'regenerated';
  if (!last) throw new KernelError('KERNEL_TURN_NOT_FOUND', `Session "${rest.sessionId}" has no committed reply to ${verb}`, { details: { sessionId: rest.sessionId } });
  if (wanted !== undefined && wanted !== last.turnId) {
    throw new KernelError('KERNEL_TURN_NOT_FOUND', `Only the last reply can be ${what}: "${wanted}" is not the last visible turn of "${rest.sessionId}"`, {
      details: { sessionId: rest.sessionId, turnId: wanted, lastTurnId: last.turnId },
    });
  }
  const nextStep = Math.max(...last.steps.map((step) => step.step)) + 1;
  return { input: { ...stripUndefined(rest), text: last.input, turnId: last.turnId, step: nextStep }, kept: { step: last.step, reply: last.reply } };
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/** Asks for a new step (a new swipe) of the last visible turn of a session. */
export type RegenerateTurnRequest = NextStepRequest;
