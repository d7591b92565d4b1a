import type { ChatMessage } from '../ports/chat-model.js';
import type { SessionEvent } from '../ports/session-log.js';
import { STEP_SELECTED, TURN_EDITED, type TurnEditedData, TURNS_REMOVED } from './chat-control-events.js';

/** Type of the event that records a committed turn. */
export const TURN_COMMITTED = 'kernel/turn-committed';

/** Payload of a `kernel/turn-committed` event. */
export interface TurnCommittedData {
  readonly input: string;
  readonly reply: string;
  /** The actor's reasoning, when it produced any: shown collapsed by apps, never sent back to a model. */
  readonly reasoning?: string;
  /** Set by a `continue` turn: the step whose reply this step's reply extends. */
  readonly continuedFrom?: number;
}

/** One committed step of a turn, as visible now (edits applied). */
export interface CommittedStep extends TurnCommittedData {
  readonly step: number;
  /** When that step was committed. */
  readonly at: string;
  /** True when a `kernel/turn-edited` event changed its input or reply. */
  readonly edited?: boolean;
  /** The step this one continued (a `continue` turn: its reply starts with that step's reply). */
  readonly continuedFrom?: number;
}

/**
 * A committed turn as the player sees it: the kept step's input and visible reply, and every
 * committed step of the turn (for swipes). The kept step is the one named by the turn's latest
 * `kernel/turn-committed` or `kernel/step-selected` event: a regeneration shows the new reply,
 * a swipe brings an older one back.
 */
export interface CommittedTurnRecord extends CommittedStep {
  readonly turnId: string;
  /** Every committed step of the turn, ordered by step number. */
  readonly steps: readonly CommittedStep[];
}

/**
 * Folds a session's events into `turns`: one entry per turn holding its kept step, in order of
 * the turn's first appearance (a regenerated turn stays in its place). Applies the chat-control
 * events: `kernel/step-selected` (which step is kept), `kernel/turn-edited` (the visible text:
 * an input edit holds for every step of the turn, a reply edit for its step; the original stays
 * in the log) and `kernel/turns-removed` (that turn and every later
 * one leave the history; a turn committed afterwards is appended at the end). Events whose
 * payload does not have the expected shape (a hand-edited import) or that name an unknown turn
 * or step are skipped. This is the one rule every view of a conversation uses; call it again
 * with later events to extend.
 * @param events - session events, in log order
 * @param turns - the map to extend (default: a new one)
 * @returns `turns`
 */
export function foldCommittedTurns(events: readonly SessionEvent[], turns: Map<string, CommittedTurnRecord> = new Map()): Map<string, CommittedTurnRecord> {
  for (const event of events) {
    if (event.type === TURN_COMMITTED) foldCommit(turns, event);
    else if (event.type === STEP_SELECTED) foldSelection(turns, event);
    else if (event.type === TURN_EDITED) foldEdit(turns, event);
    else if (event.type === TURNS_REMOVED) foldRemoval(turns, event);
  }
  return turns;
}

function foldCommit(turns: Map<string, CommittedTurnRecord>, event: SessionEvent): void {
  const data = event.data as (Partial<TurnCommittedData> & { continuedFrom?: unknown }) | null;
  if (typeof data?.input !== 'string' || typeof data.reply !== 'string') return;
  const { step: stepNumber, at, turnId } = event;
  const { input, reply } = data;
  const reasoning = typeof data.reasoning === 'string' && data.reasoning !== '' ? data.reasoning : undefined;
  const continuedFrom = Number.isInteger(data.continuedFrom) ? (data.continuedFrom as number) : undefined;
  // The usual step has neither reasoning nor a continuation: built without spreads (this runs for
  // every turn a harness reads), with the same field order as the general case.
  const plain = reasoning === undefined && continuedFrom === undefined;
  const step: CommittedStep = plain
    ? { step: stepNumber, at, input, reply }
    : { step: stepNumber, at, input, reply, ...(reasoning !== undefined ? { reasoning } : {}), ...(continuedFrom !== undefined ? { continuedFrom } : {}) };
  const known = turns.get(turnId);
  // The usual commit is a turn's first: one step, nothing to merge or sort.
  const steps = known ? [...known.steps.filter((candidate) => candidate.step !== stepNumber), step].sort((a, b) => a.step - b.step) : [step];
  turns.set(turnId, plain ? { step: stepNumber, at, input, reply, turnId, steps } : { ...step, turnId, steps });
}

function foldSelection(turns: Map<string, CommittedTurnRecord>, event: SessionEvent): void {
  const turn = turns.get(event.turnId);
  const kept = turn?.steps.find((candidate) => candidate.step === event.step);
  if (!turn || !kept) return;
  turns.set(event.turnId, { ...kept, turnId: turn.turnId, steps: turn.steps });
}

// The player's line is one message whatever reply is kept (SillyTavern swipes only the reply): an
// edit of the input applies to every step of the turn, an edit of the reply to its own step.
function foldEdit(turns: Map<string, CommittedTurnRecord>, event: SessionEvent): void {
  const data = event.data as Partial<TurnEditedData> | null;
  const turn = turns.get(event.turnId);
  const original = turn?.steps.find((candidate) => candidate.step === event.step);
  if (!turn || !original || typeof data !== 'object' || data === null) return;
  const input = typeof data.input === 'string' ? data.input : undefined;
  const reply = typeof data.reply === 'string' ? data.reply : undefined;
  const steps = turn.steps.map((candidate) => {
    const own = candidate.step === event.step;
    if (!own && (input === undefined || input === candidate.input)) return candidate;
    return { ...candidate, input: input ?? candidate.input, reply: own && reply !== undefined ? reply : candidate.reply, edited: true };
  });
  const kept = steps.find((candidate) => candidate.step === turn.step) ?? turn;
  turns.set(event.turnId, { ...kept, turnId: turn.turnId, steps });
}

function foldRemoval(turns: Map<string, CommittedTurnRecord>, event: SessionEvent): void {
  if (!turns.has(event.turnId)) return;
  let removing = false;
  for (const turnId of [...turns.keys()]) {
    if (turnId === event.turnId) removing = true;
    if (removing) turns.delete(turnId);
  }
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
