import type { SessionEvent } from '@troupe/kernel';
import * as z from 'zod';

const TurnCommittedSchema = z.object({ input: z.string(), reply: z.string() });
const SelectionSchema = z.object({ workspaceId: z.string().nullable() });

/** One exchange of the chat: what the player said and the visible reply. */
export interface ChatMessageView {
  readonly turnId: string;
  readonly step: number;
  readonly at: string;
  readonly input: string;
  readonly reply: string;
}

/** A row of the session list. */
export interface SessionSummary {
  readonly id: string;
  readonly turns: number;
  readonly storyId: string | null;
  readonly lastActivity: string | null;
}

/**
 * The chat as the player saw it: for each turn its latest committed step, in order of first
 * appearance (the same rule the kernel uses to rebuild history). Malformed events are skipped.
 * @param events - the session's events
 * @returns the exchanges
 */
export function chatMessages(events: readonly SessionEvent[]): ChatMessageView[] {
  const latest = new Map<string, ChatMessageView>();
  for (const event of events) {
    if (event.type !== 'kernel/turn-committed') continue;
    const data = TurnCommittedSchema.safeParse(event.data);
    if (!data.success) continue;
    latest.set(event.turnId, { turnId: event.turnId, step: event.step, at: event.at, ...data.data });
  }
  return [...latest.values()];
}

/**
 * Summarises a session for the list.
 * @param id - the session id
 * @param events - its events
 * @returns turn count, the selected story and the last event time
 */
export function summarizeSession(id: string, events: readonly SessionEvent[]): SessionSummary {
  let storyId: string | null = null;
  for (const event of events) {
    if (event.type !== 'agent-rp/story-workspace-selected') continue;
    const data = SelectionSchema.safeParse(event.data);
    if (data.success) storyId = data.data.workspaceId;
  }
  return { id, turns: chatMessages(events).length, storyId, lastActivity: events.at(-1)?.at ?? null };
}
