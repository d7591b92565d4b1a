import type { ChatMessage } from '../ports/chat-model.js';
import type { SessionEvent, SessionLog } from '../ports/session-log.js';
import { type CommittedTurnRecord, foldCommittedTurns, messagesFromTurns } from './session-history.js';

interface CachedSession {
  lastEventId: string | undefined;
  /** Latest committed input/reply per turn, in order of first appearance. */
  readonly turns: Map<string, CommittedTurnRecord>;
}

/**
 * Keeps each recent session's committed turns in memory and reads only the events appended
 * since the last turn, so a turn's cost does not grow with the length of its session. The log is
 * append-only, so reading `afterId` is always correct; if the log no longer has the cached id
 * (the session was deleted and recreated), the session is read again from the start.
 */
export class HistoryCache {
  readonly #sessions = new Map<string, CachedSession>();
  readonly #log: SessionLog;
  readonly #capacity: number;

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
   * @returns the messages, and how many older messages were left out
   */
  async history(sessionId: string, currentTurnId: string, maxTurns = Number.POSITIVE_INFINITY): Promise<{ messages: ChatMessage[]; omitted: number }> {
    const session = await this.#refresh(sessionId);
    const all = session.turns;
    const earlier = all.has(currentTurnId) ? all.size - 1 : all.size;
    const skip = Math.max(0, earlier - maxTurns);
    if (skip === 0) return { messages: messagesFromTurns(all.values(), currentTurnId), omitted: 0 };
    // Walk past the oldest turns without building their messages.
    const recent: CommittedTurnRecord[] = [];
    let seen = 0;
    for (const turn of all.values()) {
      if (turn.turnId === currentTurnId) continue;
      if (seen++ >= skip) recent.push(turn);
    }
    return { messages: messagesFromTurns(recent, currentTurnId), omitted: skip * 2 };
  }

  /**
   * The session's visible turns (kept steps, edits and removals applied), in order.
   * @param sessionId - the session
   * @returns the cached fold; callers must not change it
   */
  async turns(sessionId: string): Promise<ReadonlyMap<string, CommittedTurnRecord>> {
    return (await this.#refresh(sessionId)).turns;
  }

  async #refresh(sessionId: string): Promise<CachedSession> {
    let session = this.#sessions.get(sessionId);
    let events: readonly SessionEvent[];
    if (session?.lastEventId !== undefined) {
      try {
        events = await this.#log.read(sessionId, { afterId: session.lastEventId });
      } catch {
        session = undefined;
        events = await this.#log.read(sessionId);
      }
    } else {
      events = await this.#log.read(sessionId);
    }
    if (!session) session = { lastEventId: undefined, turns: new Map() };
    foldCommittedTurns(events, session.turns);
    const last = events[events.length - 1];
    if (last) session.lastEventId = last.id;
    // Re-insert to mark as most recently used; drop the oldest beyond capacity.
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, session);
    if (this.#sessions.size > this.#capacity) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    return session;
  }
}
