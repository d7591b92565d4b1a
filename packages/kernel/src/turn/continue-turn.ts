import type { HistoryCache } from './history-cache.js';
import { type NextStepRequest, planNextStep } from './next-step.js';
import type { TurnInput } from './turn-input.js';
import type { TurnContinuation } from './run-turn.js';

/** Asks the actor to extend the last reply of a session. */
export type ContinueTurnRequest = NextStepRequest;

/**
 * Plans a `continue`: the last visible turn runs again as a new step (one past its highest),
 * with the kept step's visible reply as the start of the actor's answer. The committed step's
 * reply is that reply with the continuation appended, so swiping back to the step before still
 * shows the reply as it was, and plugins see an ordinary regenerated step.
 * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND
 */
export async function planContinuation(services: { readonly histories: HistoryCache }, raw: unknown): Promise<{ input: TurnInput; continuation: TurnContinuation }> {
  const { input, kept } = await planNextStep(services, raw, 'continue');
  return { input, continuation: kept };
}
