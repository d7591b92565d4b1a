import { type CommittedTurnRecord, foldCommittedTurns, type SessionEvent } from '@troupe/kernel';
import { STORY_EVENTS } from '@troupe/plugin-story';
import * as z from 'zod';
import type { SessionSummary } from '../wire/chat.js';
import { CHAT_EVENT_TYPES } from './session-reads.js';

const SelectionSchema = z.object({ workspaceId: z.string().nullable() });

/** One exchange of the chat: what the player said, the visible reply, and the turn's steps (swipes). */
export type ChatMessageView = CommittedTurnRecord;

/**
 * The list row of a session whose log cannot be read.
 * @param id - the session id
 * @param problem - what is wrong (the store's message, naming the file and line)
 * @returns a row with no turns and the problem
 */
export function damagedSession(id: string, problem: string): SessionSummary {
  return { id, turns: 0, storyId: null, lastActivity: null, problem };
}

/**
 * The chat as the player sees it: each visible turn with its kept step (the latest unless a swipe
 * kept another) and every committed step, edits applied, removed turns left out, in order of first
 * appearance — the kernel's own rule (`foldCommittedTurns`), so the UI shows exactly the history
 * the actor receives. Malformed events are skipped.
 * @param events - the session's events
 * @returns the exchanges
 */
export function chatMessages(events: readonly SessionEvent[]): ChatMessageView[] {
  return [...foldCommittedTurns(events).values()];
}

/** What a session's list row is made from: its chat events and its story selections. */
export const SUMMARY_EVENT_TYPES: readonly string[] = Object.freeze([...CHAT_EVENT_TYPES, STORY_EVENTS.workspaceSelected]);

/**
 * Summarises a session for the list (from {@link SUMMARY_EVENT_TYPES}: `lastActivity` is the
 * time of the last of those, a turn's commit or a control).
 * @param id - the session id
 * @param events - its events
 * @returns turn count, the selected story and the last event time
 */
export function summarizeSession(id: string, events: readonly SessionEvent[]): SessionSummary {
  let storyId: string | null = null;
  for (const event of events) {
    if (event.type !== STORY_EVENTS.workspaceSelected) continue;
    const data = SelectionSchema.safeParse(event.data);
    if (data.success) storyId = data.data.workspaceId;
  }
  return { id, turns: chatMessages(events).length, storyId, lastActivity: events.at(-1)?.at ?? null };
}
