/**
 * Session-log events a chat's controls write (swipe, edit, delete). They are appended, never
 * rewritten: the committed text stays in the log, and {@link foldCommittedTurns} applies these
 * events on top of it to give the history the player sees and the actor reads.
 */

/** A player kept one committed step of a turn (a swipe). `turnId`/`step` of the event name it. */
export const STEP_SELECTED = 'kernel/step-selected';

/** A player edited a committed step's input and/or reply; the event's `turnId`/`step` name it. */
export const TURN_EDITED = 'kernel/turn-edited';

/** A player removed a turn and every turn after it; the event's `turnId` names the first one removed. */
export const TURNS_REMOVED = 'kernel/turns-removed';

/**
 * The `findLatest` key every chat-control event carries: `findLatest({type: STEP_SELECTED, key:
 * CHAT_CONTROL_KEY})` is the session's latest swipe without a scan, so a plugin can tell cheaply
 * whether anything changed since it last looked (the story plugin's continuity does).
 */
export const CHAT_CONTROL_KEY = 'chat-control';

/**
 * The chat-control event types and their lookup key, as one public value: `stepSelected`
 * (`kernel/step-selected`), `turnEdited` (`kernel/turn-edited`), `turnsRemoved`
 * (`kernel/turns-removed`) and `key` (every such event's `findLatest` key, so
 * `findLatest({type: CHAT_CONTROL_EVENTS.stepSelected, key: CHAT_CONTROL_EVENTS.key})` is the
 * session's latest swipe without a scan).
 */
export const CHAT_CONTROL_EVENTS = Object.freeze({
  stepSelected: STEP_SELECTED,
  turnEdited: TURN_EDITED,
  turnsRemoved: TURNS_REMOVED,
  key: CHAT_CONTROL_KEY,
});

/** Payload of a `kernel/step-selected` event. */
export interface StepSelectedData {
  readonly step: number;
}

/** Payload of a `kernel/turn-edited` event: the new visible text (omitted fields stay as they were). */
export interface TurnEditedData {
  readonly step: number;
  readonly input?: string;
  readonly reply?: string;
}

/** Payload of a `kernel/turns-removed` event. */
export interface TurnsRemovedData {
  readonly fromTurnId: string;
}
