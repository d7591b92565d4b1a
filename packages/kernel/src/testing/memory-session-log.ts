import { parseExport } from '../ports/session-export.js';
import { KernelStorageError } from '../ports/storage-errors.js';
import {
  type EventKey,
  type NewSessionEvent,
  type ReadEventsOptions,
  type ReadTypedOptions,
  type SessionEvent,
  type SessionLog,
  type TypedEvents,
  serializeNewEvents,
  storedEventJson,
  validateEventKey,
  validateReadTypedOptions,
  validateSessionId,
} from '../ports/session-log.js';
import type { HeldSessionTurn, LockSessionTurnOptions, SessionTurnLock } from '../ports/session-turn-lock.js';
import { MemoryTurnLocks } from './memory-turn-locks.js';

/**
 * A stored event: its fields, and its data as the JSON text validation wrote (never an object a
 * caller could reach). The text is one flat string of its own, so a long session keeps no view
 * into a larger string (a prompt cut from a whole `history.md`) and no object graph per event.
 */
interface StoredEvent extends Omit<SessionEvent, 'data'> {
  readonly dataJson: string;
}

interface MemorySession {
  readonly events: StoredEvent[];
  /**
   * Position by id, only for a session whose ids are not its positions: an appended or branched
   * session's event `eN` is at position N - 1 (no map entry per event); an import keeps its ids.
   */
  index: Map<string, number> | undefined;
  /** The latest keyed event by type, then key (no joined lookup string made per lookup). */
  readonly keys: Map<string, Map<string, StoredEvent>>;
  nextSeq: number;
}

/**
 * An in-memory {@link SessionLog} with the same semantics as the on-disk one (it passes the same
 * contract suites). Like a text store, it keeps each event's data as the JSON text validation
 * wrote (serialised once, see `serializeNewEvents`) and hands out what parsing it gives, so
 * callers can't mutate what is stored — just as with a real log. The events `append` returns
 * parse their data on first read of `data` (most callers only want the ids: the turn's own
 * events are rarely read back), so appending costs the serialisation alone. Also a {@link SessionTurnLock}:
 * harnesses sharing one log run the turns of a session one at a time, as processes sharing a
 * disk do.
 */
export class MemorySessionLog implements SessionLog, SessionTurnLock {
  readonly #sessions = new Map<string, MemorySession>();
  readonly #turnLocks = new MemoryTurnLocks();

  lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options?: LockSessionTurnOptions): Promise<T> {
    return this.#turnLocks.lockSessionTurn(sessionId, work, options);
  }

  async append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    const dataJson = serializeNewEvents(events);
    const session = this.#session(sessionId, true);
    const appended = new Array<SessionEvent>(events.length);
    for (let at = 0; at < events.length; at++) {
      const sequence = session.nextSeq++;
      const stored = storedEvent(`e${sequence}`, sessionId, events[at]!, flattened(dataJson[at]!));
      this.#push(session, stored, sequence);
      appended[at] = parsedOnRead(stored);
    }
    return appended;
  }

  async read(sessionId: string, options: ReadEventsOptions = {}): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    if (!session) {
      if (options.afterId !== undefined) throw notFound(sessionId, options.afterId);
      return [];
    }
    let start = 0;
    if (options.afterId !== undefined) {
      const position = positionOf(session, options.afterId);
      if (position === undefined) throw notFound(sessionId, options.afterId);
      start = position + 1;
    }
    return session.events.slice(start).map(parsed);
  }

  async readTyped(sessionId: string, options: ReadTypedOptions): Promise<TypedEvents> {
    validateSessionId(sessionId);
    validateReadTypedOptions(options);
    const session = this.#sessions.get(sessionId);
    const position = (id: string | undefined) => {
      if (id === undefined) return undefined;
      const at = session && positionOf(session, id);
      if (at === undefined) throw notFound(sessionId, id);
      return at;
    };
    const from = (position(options.afterId) ?? -1) + 1;
    const to = position(options.beforeId) ?? session?.events.length ?? 0;
    const types = new Set(options.types);
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const picked: StoredEvent[] = [];
    let earlier = 0;
    // Newest first, so a limited read stops counting payloads once it has enough.
    for (let at = to - 1; at >= from; at--) {
      const event = session!.events[at]!;
      if (!types.has(event.type)) continue;
      if (picked.length < limit) picked.push(event);
      else earlier += 1;
    }
    return { events: picked.reverse().map(parsed), earlier };
  }

  async findLatest(sessionId: string, key: EventKey): Promise<SessionEvent | undefined> {
    validateSessionId(sessionId);
    validateEventKey(key);
    const found = this.#sessions.get(sessionId)?.keys.get(key.type)?.get(key.key);
    return found ? parsed(found) : undefined;
  }

  async branch(sessionId: string, atEventId: string, newSessionId: string): Promise<void> {
    validateSessionId(sessionId);
    validateSessionId(newSessionId);
    if (this.#sessions.has(newSessionId)) throw exists(newSessionId);
    const parent = this.#sessions.get(sessionId);
    const position = parent && positionOf(parent, atEventId);
    if (!parent || position === undefined) throw notFound(sessionId, atEventId);
    const child = this.#session(newSessionId, true);
    for (const event of parent.events.slice(0, position + 1)) this.#push(child, { ...event, sessionId: newSessionId }, sequenceOf(event.id));
    child.nextSeq = parent.nextSeq;
  }

  async export(sessionId: string): Promise<string> {
    validateSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    return (session?.events ?? []).map((event) => `${storedEventJson(event, event.dataJson)}\n`).join('');
  }

  async import(sessionId: string, jsonl: string): Promise<void> {
    validateSessionId(sessionId);
    const events = parseExport(jsonl);
    if (this.#sessions.has(sessionId)) throw exists(sessionId);
    const session = this.#session(sessionId, true);
    for (const event of events) this.#push(session, storedEvent(event.id, sessionId, event, JSON.stringify(event.data)), sequenceOf(event.id));
    session.nextSeq = Math.max(1, ...events.map((event) => sequenceOf(event.id) + 1));
  }

  async list(): Promise<readonly string[]> {
    return [...this.#sessions.keys()].sort();
  }

  #session(sessionId: string, create: boolean): MemorySession {
    let session = this.#sessions.get(sessionId);
    if (!session && create) {
      session = { events: [], index: undefined, keys: new Map(), nextSeq: 1 };
      this.#sessions.set(sessionId, session);
    }
    return session as MemorySession;
  }

  // `sequence` is the number in the event's id (`e${sequence}`, ids never have leading zeros).
  #push(session: MemorySession, event: StoredEvent, sequence: number): void {
    const position = session.events.length;
    // An event is usually where its id says (`e${position + 1}`): only the others need the map.
    if (session.index === undefined && sequence !== position + 1) session.index = new Map(session.events.map((stored, at) => [stored.id, at]));
    session.index?.set(event.id, position);
    session.events.push(event);
    if (event.key === undefined) return;
    let byKey = session.keys.get(event.type);
    if (!byKey) {
      byKey = new Map();
      session.keys.set(event.type, byKey);
    }
    byKey.set(event.key, event);
  }
}

// Where event `id` is in the session (an id of the form `eN` at position N - 1, unless the session
// keeps a map), or undefined for an id it does not have.
function positionOf(session: MemorySession, id: string): number | undefined {
  if (session.index !== undefined) return session.index.get(id);
  if (!EVENT_ID_PATTERN.test(id)) return undefined;
  const position = sequenceOf(id) - 1;
  return position < session.events.length ? position : undefined;
}

const EVENT_ID_PATTERN = /^e[1-9][0-9]*$/;

function sequenceOf(id: string): number {
  return Number.parseInt(id.slice(1), 10);
}

// The text itself, made flat. JSON.stringify and a frozen-JSON splice give a tree of string
// pieces (a rope), not one string: kept as is, every stored event would hold that tree, which the
// garbage collector walks and copies piece by piece, and the first read would flatten it anyway.
// Reading one character flattens it in place (one copy, the pieces become garbage at once): in a
// story turn's log that costs less than it saves.
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

// An event in the stored field order (id and session first, as storage-fs writes its lines),
// spelled out: one object shape per case, built in one step (no spread, no key walk).
function storedEvent(id: string, sessionId: string, event: Omit<SessionEvent, 'id' | 'sessionId' | 'data'>, dataJson: string): StoredEvent {
  const { turnId, step, type, ignorable, at, key } = event;
  return key === undefined ? { id, sessionId, turnId, step, type, ignorable, at, dataJson } : { id, sessionId, turnId, step, type, ignorable, at, key, dataJson };
}

function handedOut(id: string, sessionId: string, event: Omit<SessionEvent, 'id' | 'sessionId' | 'data'>, data: unknown): SessionEvent {
  const { turnId, step, type, ignorable, at, key } = event;
  return key === undefined ? { id, sessionId, turnId, step, type, ignorable, at, data } : { id, sessionId, turnId, step, type, ignorable, at, key, data };
}

// An appended event as `append` returns it: `data` is an own, enumerable accessor that parses
// the stored text on first read and keeps that value (assignable, like any handed-out event).
// The same value a read would hand out, made only when someone looks at it. Cheap to make: an
// accessor in an object literal costs two closures and a slow runtime path per event (≈ 1.3 µs
// on Node 20), so every event shares one accessor pair and keeps its text in a private field.
function parsedOnRead(event: StoredEvent): SessionEvent {
  const { id, sessionId, turnId, step, type, ignorable, at, key, dataJson } = event;
  const fields = key === undefined ? { id, sessionId, turnId, step, type, ignorable, at } : { id, sessionId, turnId, step, type, ignorable, at, key };
  LazyData.attach(fields, dataJson);
  return Object.defineProperty(fields, 'data', LAZY_DATA) as SessionEvent;
}

// Its constructor returns the object it is given, so a subclass's private fields are added to
// that plain object (which keeps `Object.prototype`, its keys and its shape, unlike an instance).
class ReturnsGiven {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the point of this class (see above)
    return target;
  }
}

const UNPARSED: unique symbol = Symbol('unparsed');

/** The lazily parsed data of an appended event, held in private fields of the event object itself. */
class LazyData extends ReturnsGiven {
  #json: string;
  #data: unknown = UNPARSED;

  private constructor(target: object, json: string) {
    super(target);
    this.#json = json;
  }

  static attach(target: object, json: string): void {
    new LazyData(target, json);
  }

  static read(target: object): unknown {
    const held = target as LazyData;
    if (held.#data === UNPARSED) held.#data = JSON.parse(held.#json);
    return held.#data;
  }

  static write(target: object, value: unknown): void {
    (target as LazyData).#data = value;
  }
}

// One accessor pair for every appended event (`this` is the event).
const LAZY_DATA: PropertyDescriptor = {
  get(this: object): unknown {
    return LazyData.read(this);
  },
  set(this: object, value: unknown): void {
    LazyData.write(this, value);
  },
  enumerable: true,
  configurable: true,
};

// What a read hands out: a fresh parse of the stored text.
function parsed(event: StoredEvent): SessionEvent {
  return handedOut(event.id, event.sessionId, event, JSON.parse(event.dataJson));
}

function notFound(sessionId: string, eventId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EVENT_NOT_FOUND', `Session "${sessionId}" has no event "${eventId}"`);
}

function exists(sessionId: string): KernelStorageError {
  return new KernelStorageError('SESSION_EXISTS', `Session "${sessionId}" already exists`);
}
