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
