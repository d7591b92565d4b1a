import { type Clock, type NewSessionEvent, type SessionLog, systemClock } from '@troupe/kernel';
import { validateTreeId } from '@troupe/kernel/storage';
import { SELECTION_KEY, STORY_EVENTS } from './events.js';

const SELECTION_EVENT_KEY = Object.freeze({ type: STORY_EVENTS.workspaceSelected, key: SELECTION_KEY });

/** Options of {@link selectStoryWorkspace}. */
export interface SelectionOptions {
  readonly clock?: Clock;
}

/**
 * Enables a story workspace for a session (or clears the selection with `null`). The selection
 * is a session event, so it follows the session through reload, export/import and branches.
 * Clearing brings the next turn back to the plain character flow; the workspace files stay.
 * @param sessionLog - the session log (`Tokens.SessionLog`)
 * @param sessionId - the session
 * @param workspaceId - the workspace, or `null` to clear
 * @throws {KernelStorageError} TREE_INVALID_ID for a malformed id; session log errors
 */
export async function selectStoryWorkspace(
  sessionLog: SessionLog,
  sessionId: string,
  workspaceId: string | null,
  options: SelectionOptions = {},
): Promise<void> {
  if (workspaceId !== null) validateTreeId(workspaceId);
  const clock = options.clock ?? systemClock;
  await sessionLog.append(sessionId, [selectionEvent(workspaceId, new Date(clock.now()).toISOString())]);
}

/**
 * The session event that selects a workspace (or clears the selection with `null`), for a caller
 * that appends it with other events in one batch (a branch's fork). Internal to the package.
 * @param workspaceId - the workspace, or `null`
 * @param at - the event time (ISO-8601)
 * @returns the event
 */
export function selectionEvent(workspaceId: string | null, at: string): NewSessionEvent {
  return { turnId: '', step: 0, type: STORY_EVENTS.workspaceSelected, ignorable: true, at, key: SELECTION_KEY, data: { workspaceId } };
}

/**
 * Clears a session's workspace selection. @see selectStoryWorkspace
 * @param sessionLog - the session log
 * @param sessionId - the session
 * @param options - the clock used for the event time
 * @throws {KernelStorageError} session log errors
 */
export function clearStoryWorkspace(sessionLog: SessionLog, sessionId: string, options: SelectionOptions = {}): Promise<void> {
  return selectStoryWorkspace(sessionLog, sessionId, null, options);
}

/**
 * The workspace a session has enabled, from its latest selection event.
 * @param findLatest - `sessionLog.findLatest` bound to the session, or a turn's `ctx.events.findLatest`
 * @returns the workspace id, or `undefined` when none is selected (or the event is malformed)
 */
export async function readStoryWorkspaceSelection(
  findLatest: (key: { type: string; key: string }) => Promise<{ data: unknown } | undefined>,
): Promise<string | undefined> {
  const event = await findLatest(SELECTION_EVENT_KEY);
  // Read on every turn: the schema's one rule checked by hand (an object whose `workspaceId` is a string).
  const data = event?.data as { workspaceId?: unknown } | null | undefined;
  return typeof data === 'object' && data !== null && typeof data.workspaceId === 'string' ? data.workspaceId : undefined;
}
