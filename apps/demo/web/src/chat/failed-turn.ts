import { ApiFailure } from '../api.js';

/**
 * A turn that failed before its commit: the session, the line and the id it played under. Sending
 * that same line again in that session retries the turn under its id, so the server replays what
 * the turn prepared (a story draft) instead of running every stage again.
 */
export interface FailedTurn {
  readonly sessionId: string;
  readonly input: string;
  readonly turnId: string;
}

/**
 * The failed turn to remember after a send that committed nothing.
 * @param error - why it ended (undefined when the player pressed Stop)
 * @param sessionId - the session it was sent in
 * @param input - the line it sent (trimmed)
 * @returns the turn, or null when there is nothing to retry: a Stop is the player's choice, and a
 *   failure without a turn id (a refused request, a lost connection) never reached the kernel's
 *   preparation under a known id
 */
export function failedTurnOf(error: unknown, sessionId: string, input: string): FailedTurn | null {
  if (!(error instanceof ApiFailure) || error.turnId === undefined) return null;
  return { sessionId, input, turnId: error.turnId };
}

/**
 * The turn id a send retries, if any.
 * @param failed - the remembered failed turn
 * @param sessionId - the session the line is sent in
 * @param input - the line (trimmed)
 * @returns its id when the line is the same (trimmed) in the same session; an edited line is a new
 *   turn, since the draft was prepared for the other line
 */
export function retryTurnId(failed: FailedTurn | null, sessionId: string, input: string): string | undefined {
  return failed && failed.sessionId === sessionId && failed.input === input ? failed.turnId : undefined;
}
