import { api, streamTurn, type TurnHandlers } from '../api.js';
import type { BranchView, ChatExchange } from '../../../src/wire/chat.js';
import type { TurnResultView } from '../../../src/wire/turn-stream.js';

// The chat controls' calls to the demo API (routes in src/server/chat-control-routes.ts and
// turn-routes.ts). Each one appends a kernel event, so the next turn's actor reads the result.

const session = (sessionId: string) => `/api/sessions/${encodeURIComponent(sessionId)}`;
const turn = (sessionId: string, turnId: string) => `${session(sessionId)}/turns/${encodeURIComponent(turnId)}`;

/**
 * The chat as the actor will see it: each visible turn with its kept step and all its steps.
 * @returns the exchanges, in order
 */
export async function loadMessages(sessionId: string): Promise<ChatExchange[]> {
  return (await api<{ messages: ChatExchange[] }>('GET', `${session(sessionId)}/messages`)).messages;
}

/**
 * Swipe: keeps another committed step of a turn.
 * @returns the turn as visible afterwards
 */
export async function selectStep(sessionId: string, turnId: string, step: number): Promise<ChatExchange> {
  return (await api<{ turn: ChatExchange }>('PUT', `${turn(sessionId, turnId)}/step`, { step })).turn;
}

/**
 * Edits the player's line or the reply of a turn's step (the original stays in the session log).
 * @returns the turn as visible afterwards
 */
export async function editTurn(sessionId: string, turnId: string, edit: { readonly step: number; readonly input?: string; readonly reply?: string }): Promise<ChatExchange> {
  return (await api<{ turn: ChatExchange }>('PATCH', turn(sessionId, turnId), edit)).turn;
}

/**
 * Removes a turn and every turn after it from the chat.
 * @returns the removed turn ids
 */
export async function removeTurnsFrom(sessionId: string, turnId: string): Promise<string[]> {
  return (await api<{ removed: string[] }>('DELETE', turn(sessionId, turnId))).removed;
}

/**
 * Branches a new session from an exchange: the chat up to and including it, as shown now.
 * @returns the new session (its id, its exchanges, its chat's id when it is a library chat)
 */
export async function branchFrom(sessionId: string, turnId: string): Promise<BranchView> {
  return api<BranchView>('POST', `${turn(sessionId, turnId)}/branch`, {});
}

/**
 * Regenerates the last reply as a new step of its turn, streamed like a turn.
 * @returns the new step's result
 */
export function regenerateReply(sessionId: string, turnId: string, handlers: TurnHandlers, signal: AbortSignal): Promise<TurnResultView> {
  return streamTurn(`${turn(sessionId, turnId)}/regenerate`, {}, handlers, signal);
}

/**
 * Asks the actor to continue the last reply; `onDelta` receives only the continuation.
 * @returns the new step's result (its reply is the kept reply with the continuation appended)
 */
export function continueReply(sessionId: string, handlers: TurnHandlers, signal: AbortSignal): Promise<TurnResultView> {
  return streamTurn(`${session(sessionId)}/continue`, {}, handlers, signal);
}
