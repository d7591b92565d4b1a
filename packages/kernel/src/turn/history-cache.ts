import type { ChatMessage } from '../ports/chat-model.js';
import type { SessionEvent, SessionLog } from '../ports/session-log.js';
import { STEP_SELECTED, TURN_EDITED, TURNS_REMOVED } from './chat-control-events.js';
import { type CommittedTurnRecord, foldCommittedTurns, messagesFromTurns, TURN_COMMITTED } from './session-history.js';

/** The event types the conversation is folded from (everything else is skipped unread when the log can). */
export const HISTORY_EVENT_TYPES: readonly string[] = Object.freeze([TURN_COMMITTED, STEP_SELECTED, TURN_EDITED, TURNS_REMOVED]);

interface CachedSession {
  /** The last event read: the next read starts after it. */
  cursor: string | undefined;
  /** Latest committed input/reply per turn, in order of first appearance. */
  readonly turns: Map<string, CommittedTurnRecord>;
  /** Only the latest turns were read (a bounded first read); `turns()` reads the rest first. */
  partial: boolean;
  /** For a partial session: history events before the ones read (each about one older turn step). */
  earlier: number;
  /**
   * The conversation as messages, in step with `turns` (turn `i` is messages `2i` and `2i + 1`,
   * its id `ids[i]`), extended as turns are appended; undefined after a change other than
   * appending (a swipe, an edit, a removal, a regeneration) until the next read rebuilds it.
   */
  conversation: TurnMessages | undefined;
}

interface TurnMessages {
  readonly ids: string[];
  readonly messages: ChatMessage[];
}

// Extra turns read beyond what was asked, so a regenerated or removed turn or two does not
// force a second read at once.
const READ_MARGIN = 16;

/**
 * Keeps each recent session's committed turns in memory and reads only the events appended
 * since the last turn, so a turn's cost does not grow with the length of its session. When the
 * log can read by type (`SessionLog.readTyped`), only the commit and chat-control events are
 * read — never the prompt-carrying plugin events — and the first read of a session in a process
 * reads backwards from the end only as many turns as asked for (checked: every event read
 * belongs to a turn whose first commit was read too, else it reads further back). The log is
 * append-only, so reading `afterId` is always correct; if the log no longer has the cached id
 * (the session was deleted and recreated), the session is read again.
 */
export class HistoryCache {
  readonly #sessions = new Map<string, CachedSession>();
  readonly #log: SessionLog;
  readonly #capacity: number;
  // The most recently used session (the last one inserted into `#sessions`).
  #newest: string | undefined;

  /**
   * @param log - the session log
   * @param capacity - how many sessions to keep (least recently used are dropped)
   */
  constructor(log: SessionLog, capacity = 256) {
    this.#log = log;
    this.#capacity = capacity;
  }

  /**
   * The conversation before `currentTurnId`: each earlier turn's latest step as a user and an
   * assistant message — at most the last `maxTurns` turns, so a turn of a 10 000-turn session
   * does not hand every plugin 20 000 messages.
   * @param sessionId - the session
   * @param currentTurnId - the turn being run (left out)
   * @param maxTurns - most earlier turns to return (default: all)
   * @returns the messages, and how many older messages were left out (after a bounded first
   *   read, the older part is estimated from the number of its history events)
   */
  async history(sessionId: string, currentTurnId: string, maxTurns = Number.POSITIVE_INFINITY): Promise<{ messages: ChatMessage[]; omitted: number }> {
    const session = await this.#refresh(sessionId, maxTurns);
    const all = session.turns;
    const earlier = all.has(currentTurnId) ? all.size - 1 : all.size;
    const skip = Math.max(0, earlier - maxTurns);
    const unread = session.partial ? session.earlier * 2 : 0;
    // The usual case: the current turn is new (or the latest, regenerated), so the window is a
    // slice of the kept messages — work of the window, not of the session.
    session.conversation ??= conversationOf(all);
    const { ids, messages } = session.conversation;
    const end = !all.has(currentTurnId) ? ids.length : ids[ids.length - 1] === currentTurnId ? ids.length - 1 : -1;
    if (end >= 0) return { messages: messages.slice(2 * skip, 2 * end), omitted: skip * 2 + unread };
    if (skip === 0) return { messages: messagesFromTurns(all.values(), currentTurnId), omitted: unread };
    // Walk past the oldest turns without building their messages.
    const recent: CommittedTurnRecord[] = [];
    let seen = 0;
    for (const turn of all.values()) {
      if (turn.turnId === currentTurnId) continue;
      if (seen++ >= skip) recent.push(turn);
    }
    return { messages: messagesFromTurns(recent, currentTurnId), omitted: skip * 2 + unread };
  }

  /**
   * The session's visible turns (kept steps, edits and removals applied), in order.
   * @param sessionId - the session
   * @returns the cached fold; callers must not change it
   */
  async turns(sessionId: string): Promise<ReadonlyMap<string, CommittedTurnRecord>> {
    return (await this.#refresh(sessionId, Number.POSITIVE_INFINITY)).turns;
  }

  async #refresh(sessionId: string, wanted: number): Promise<CachedSession> {
    let session = this.#sessions.get(sessionId);
    if (session?.partial && !Number.isFinite(wanted)) session = undefined;
    if (session && !(await this.#catchUp(sessionId, session, wanted))) session = undefined;
    session ??= await this.#load(sessionId, wanted);
    // Re-insert to mark as most recently used (unless it already is: the next turn of the same
    // session, the usual case); drop the oldest beyond capacity.
    if (this.#newest === sessionId && this.#sessions.get(sessionId) === session) return session;
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, session);
    this.#newest = sessionId;
    if (this.#sessions.size > this.#capacity) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    return session;
  }

  // Folds what was appended since the cursor; false when the session must be loaded again.
  async #catchUp(sessionId: string, session: CachedSession, wanted: number): Promise<boolean> {
    const cursor = session.cursor;
    let events: readonly SessionEvent[];
    try {
      if (this.#log.readTyped) {
        events = (await this.#log.readTyped(sessionId, cursor === undefined ? { types: HISTORY_EVENT_TYPES } : { types: HISTORY_EVENT_TYPES, afterId: cursor })).events;
      } else {
        events = await this.#log.read(sessionId, cursor === undefined ? {} : { afterId: cursor });
      }
    } catch {
      return false;
    }
    // A partial fold is only right for turns whose first commit it read.
    if (session.partial && !anchored(events, session.turns)) return false;
    const appended = appendedTurns(events, session.turns);
    foldCommittedTurns(events, session.turns);
    if (appended === undefined) session.conversation = undefined;
    else if (session.conversation) extend(session.conversation, appended, session.turns);
    const last = events[events.length - 1];
    if (last) session.cursor = last.id;
    // Removals shrank a partial window below what is asked: read further back.
    return !(session.partial && session.turns.size <= wanted);
  }

  async #load(sessionId: string, wanted: number): Promise<CachedSession> {
    const readTyped = this.#log.readTyped?.bind(this.#log);
    if (!readTyped) return whole(await this.#log.read(sessionId));
    if (!Number.isFinite(wanted)) return whole((await readTyped(sessionId, { types: HISTORY_EVENT_TYPES })).events);
    // Backwards in growing pages until the window holds more than `wanted` turns, each read
    // from its first commit on (or the log's start is reached).
    let events: SessionEvent[] = [];
    let limit = Math.max(1, Math.ceil(wanted)) + READ_MARGIN;
    for (;;) {
      const before = events[0]?.id;
      const page = await readTyped(sessionId, { types: HISTORY_EVENT_TYPES, limit, ...(before === undefined ? {} : { beforeId: before }) });
      events = [...page.events, ...events];
      if (page.earlier === 0 || page.events.length === 0) return whole(events);
      const turns = new Map<string, CommittedTurnRecord>();
      if (anchored(events, turns)) {
        foldCommittedTurns(events, turns);
        if (turns.size > wanted) return { cursor: events[events.length - 1]?.id, turns, partial: true, earlier: page.earlier, conversation: undefined };
      }
      limit *= 2;
    }
  }
}

function whole(events: readonly SessionEvent[]): CachedSession {
  return { cursor: events[events.length - 1]?.id, turns: foldCommittedTurns(events), partial: false, earlier: 0, conversation: undefined };
}

// The turns a batch of events only appends (each a first commit of a turn not yet folded), in
// order; undefined when the batch changes a folded turn (then the messages are rebuilt).
function appendedTurns(events: readonly SessionEvent[], turns: ReadonlyMap<string, CommittedTurnRecord>): string[] | undefined {
  const added: string[] = [];
  // Most batches hold one commit (the turn since the last read): the set is made for a second.
  let seen: Set<string> | undefined;
  for (const event of events) {
    if (!HISTORY_EVENT_TYPES.includes(event.type)) continue;
    if (event.type !== TURN_COMMITTED || turns.has(event.turnId)) return undefined;
    if (added.length === 1) seen = new Set(added);
    if (seen?.has(event.turnId)) return undefined;
    seen?.add(event.turnId);
    added.push(event.turnId);
  }
  return added;
}

function conversationOf(turns: ReadonlyMap<string, CommittedTurnRecord>): TurnMessages {
  const conversation: TurnMessages = { ids: [], messages: [] };
  extend(conversation, turns.keys(), turns);
  return conversation;
}

// Messages are shared by every turn that reads them: frozen, so no reader can change another's.
function extend(conversation: TurnMessages, turnIds: Iterable<string>, turns: ReadonlyMap<string, CommittedTurnRecord>): void {
  for (const turnId of turnIds) {
    const turn = turns.get(turnId);
    // A commit the fold skipped (malformed payload) adds no turn.
    if (!turn) continue;
    conversation.ids.push(turnId);
    conversation.messages.push(Object.freeze({ role: 'user', content: turn.input }), Object.freeze({ role: 'assistant', content: turn.reply }));
  }
}

// True when every event belongs to a turn already folded or whose first commit (step 0) comes
// earlier in `events`: then folding them onto `turns` gives what folding the whole log would.
function anchored(events: readonly SessionEvent[], turns: ReadonlyMap<string, CommittedTurnRecord>): boolean {
  const started = new Set<string>();
  for (const event of events) {
    if (event.type === TURN_COMMITTED && event.step === 0) started.add(event.turnId);
    else if (!turns.has(event.turnId) && !started.has(event.turnId)) return false;
  }
  return true;
}
