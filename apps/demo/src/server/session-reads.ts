import { CHAT_CONTROL_EVENTS, type SessionEvent, type SessionLog, TURN_COMMITTED } from '@troupe/kernel';

/** The events the chat view folds (`foldCommittedTurns`): commits and the chat controls. */
export const CHAT_EVENT_TYPES: readonly string[] = Object.freeze([TURN_COMMITTED, CHAT_CONTROL_EVENTS.stepSelected, CHAT_CONTROL_EVENTS.turnEdited, CHAT_CONTROL_EVENTS.turnsRemoved]);

/**
 * The events of some types only. A log that can read by type (storage-fs from its index of line
 * types, PostgreSQL by column) reads just those lines: a long chat's prompt records (hundreds of
 * KB a turn) are never parsed to show its messages, and a log past V8's string limit (about
 * 512 MiB) stays readable. Other logs are read whole and filtered.
 * @param log - the session log
 * @param sessionId - the session
 * @param types - the event types wanted
 * @returns those events, in log order
 */
export async function eventsOfTypes(log: SessionLog, sessionId: string, types: readonly string[]): Promise<readonly SessionEvent[]> {
  if (log.readTyped) return (await log.readTyped(sessionId, { types })).events;
  const wanted = new Set(types);
  return (await log.read(sessionId)).filter((event) => wanted.has(event.type));
}

/**
 * The chat events of a session ({@link CHAT_EVENT_TYPES}), for `chatMessages`.
 * @param log - the session log
 * @param sessionId - the session
 * @returns the commits and chat-control events, in log order
 */
export function chatEvents(log: SessionLog, sessionId: string): Promise<readonly SessionEvent[]> {
  return eventsOfTypes(log, sessionId, CHAT_EVENT_TYPES);
}
