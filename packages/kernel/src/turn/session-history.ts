import type { ChatMessage } from '../ports/chat-model.js';
import type { SessionEvent } from '../ports/session-log.js';

/** Type of the event that records a committed turn. */
export const TURN_COMMITTED = 'kernel/turn-committed';

/** Payload of a `kernel/turn-committed` event. */
export interface TurnCommittedData {
  readonly input: string;
  readonly reply: string;
}

/**
 * Rebuilds the conversation from committed turns: for each turn its latest step, in order of
 * first appearance. The turn being run now is left out, so a retry or regeneration never sees
 * its own earlier attempt.
 * @param events - the session's events
 * @param currentTurnId - the turn being run
 * @returns user/assistant messages
 */
export function historyFromEvents(events: readonly SessionEvent[], currentTurnId: string): ChatMessage[] {
  const latest = new Map<string, TurnCommittedData>();
  for (const event of events) {
    if (event.type !== TURN_COMMITTED || event.turnId === currentTurnId) continue;
    // Map keeps the first insertion position, so a regenerated turn stays in its place.
    latest.set(event.turnId, event.data as TurnCommittedData);
  }
  const messages: ChatMessage[] = [];
  for (const data of latest.values()) {
    messages.push({ role: 'user', content: data.input }, { role: 'assistant', content: data.reply });
  }
  return messages;
}
