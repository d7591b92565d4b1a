import type { ChatMessage } from '../ports/chat-model.js';
import type { SessionEvent } from '../ports/session-log.js';

/** Type of the event that records a committed turn. */
export const TURN_COMMITTED = 'kernel/turn-committed';

/** Payload of a `kernel/turn-committed` event. */
export interface TurnCommittedData {
  readonly input: string;
  readonly reply: string;
  /** The actor's reasoning, when it produced any: shown collapsed by apps, never sent back to a model. */
  readonly reasoning?: string;
}

/** A committed turn as the player saw it: its latest step's input and visible reply. */
export interface CommittedTurnRecord extends TurnCommittedData {
  readonly turnId: string;
  readonly step: number;
  /** When that step was committed. */
  readonly at: string;
}

/**
 * Folds `kernel/turn-committed` events into `turns`: one entry per turn holding its latest
 * step, kept in order of the turn's first appearance (a regenerated turn stays in its place).
 * Events whose payload is not `{input, reply}` strings (a hand-edited import) are skipped. This
 * is the one rule every view of a conversation uses; call it again with later events to extend.
 * @param events - session events, in log order
 * @param turns - the map to extend (default: a new one)
 * @returns `turns`
 */
export function foldCommittedTurns(events: readonly SessionEvent[], turns: Map<string, CommittedTurnRecord> = new Map()): Map<string, CommittedTurnRecord> {
  for (const event of events) {
    if (event.type !== TURN_COMMITTED) continue;
    const data = event.data as Partial<TurnCommittedData> | null;
    if (typeof data?.input !== 'string' || typeof data.reply !== 'string') continue;
    const reasoning = typeof data.reasoning === 'string' && data.reasoning !== '' ? { reasoning: data.reasoning } : {};
    turns.set(event.turnId, { turnId: event.turnId, step: event.step, at: event.at, input: data.input, reply: data.reply, ...reasoning });
  }
  return turns;
}

/**
 * Chat messages for the turns before `currentTurnId` (which is left out, so a retry or
 * regeneration never sees its own earlier attempt).
 * @param turns - committed turns, from {@link foldCommittedTurns}
 * @param currentTurnId - the turn being run
 * @returns user/assistant messages
 */
export function messagesFromTurns(turns: Iterable<CommittedTurnRecord>, currentTurnId: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.turnId === currentTurnId) continue;
    messages.push({ role: 'user', content: turn.input }, { role: 'assistant', content: turn.reply });
  }
  return messages;
}

/**
 * Rebuilds the conversation from a session's events (see {@link foldCommittedTurns}).
 * @param events - the session's events
 * @param currentTurnId - the turn being run
 * @returns user/assistant messages
 */
export function historyFromEvents(events: readonly SessionEvent[], currentTurnId: string): ChatMessage[] {
  return messagesFromTurns(foldCommittedTurns(events).values(), currentTurnId);
}
