import type { RegenerateTurnRequest, TurnInput } from '@troupe/kernel';

/**
 * A turn input as a request for a new step of the last visible turn (`regenerateTurn`,
 * `continueTurn`): without its line and step, which the kernel takes from the turn itself in the
 * session's queue (a step worked out here could already be taken by another tab's request).
 * @param input - the chat's turn input (`demo.turnInputFor`)
 * @param turnId - the turn the player asked about (default: the last visible one)
 * @returns the request
 */
export function nextStepRequest(input: TurnInput, turnId?: string): RegenerateTurnRequest {
  const { text: _text, step: _step, turnId: _turnId, ...rest } = input;
  return turnId === undefined ? rest : { ...rest, turnId };
}
