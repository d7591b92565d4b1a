import { frozenJsonText, hasFrozenJson } from './frozen-json.js';
import { jsonCopy } from './json-copy.js';
import { KernelStorageError } from './storage-errors.js';

/**
 * One entry of a session's append-only log. Events are the session's durable memory: the
 * committed turns, plugin events, degradations and background task results.
 */
export interface SessionEvent<Data = unknown> {
  /** Assigned by the log: unique within the session, increasing in append order (`e1`, `e2`, …). */
  readonly id: string;
  readonly sessionId: string;
  /** The turn that produced the event (`''` for events outside a turn). */
  readonly turnId: string;
  /** Regeneration index within the turn (0 for the first attempt). */
  readonly step: number;
  /** Namespaced type, e.g. `kernel/turn-committed`, `dio/scheduled`. */
  readonly type: string;
  /** True when a consumer rebuilding the conversation may skip the event. */
  readonly ignorable: boolean;
  /** ISO-8601 time the event was created. */
  readonly at: string;
  /** Optional lookup key; `findLatest(sessionId, {type, key})` finds it without a scan. */
  readonly key?: string;
  /** JSON-serialisable payload. */
  readonly data: Data;
}

/** An event as appended: the log assigns `id` and `sessionId`. */
export type NewSessionEvent<Data = unknown> = Omit<SessionEvent<Data>, 'id' | 'sessionId'>;

/** Options for {@link SessionLog.read}. */
export interface ReadEventsOptions {
  /** Only events after this id (exclusive). Unknown ids throw `SESSION_EVENT_NOT_FOUND`. */
  readonly afterId?: string;
}

/** Options for {@link SessionLog.readTyped}. */
export interface ReadTypedOptions {
  /** Only events of these types (at least one). */
  readonly types: readonly string[];
  /** Only events after this id (exclusive). Unknown ids throw `SESSION_EVENT_NOT_FOUND`. */
  readonly afterId?: string;
  /** Only events before this id (exclusive), to page backwards. Unknown ids throw `SESSION_EVENT_NOT_FOUND`. */
  readonly beforeId?: string;
  /** Only the latest this many matching events of the range (default: all of them). */
  readonly limit?: number;
}

/** What {@link SessionLog.readTyped} returns. */
export interface TypedEvents {
  /** The matching events, in append order (the latest `limit` of the range). */
  readonly events: readonly SessionEvent[];
  /** How many matching events of the range come before `events` (left out by `limit`). */
  readonly earlier: number;
}

/** Identifies an event by its type and lookup key. */
export interface EventKey {
  readonly type: string;
  readonly key: string;
}

/**
 * Append-only event log per session. Implementations: in-memory (`@troupe/kernel/testing`)
 * and JSON Lines on disk (`@troupe/storage-fs`). Both pass the contract suite in
 * `@troupe/kernel/contracts`.
 */
export interface SessionLog {
  /**
   * Appends events atomically as one batch (all or none) and returns them with ids.
   * @throws {KernelStorageError} SESSION_INVALID_ID / SESSION_INVALID_EVENT
   */
  append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]>;
  /** Events in append order; an unknown session reads as empty. */
  read(sessionId: string, options?: ReadEventsOptions): Promise<readonly SessionEvent[]>;
  /**
   * Optional capability: the events of some types only, without reading (or parsing) the others —
   * the kernel's history needs the commits and chat-control events of the last turns, not the
   * prompt-carrying plugin events between them. With `limit`, only the latest matching events of
   * the range are read, so the first history read of a long session in a fresh process costs the
   * turns it returns, not the session's length. A log without it is read whole once per process.
   * Implementations: in-memory, `@troupe/storage-fs` (from its index of line types).
   * @throws {KernelStorageError} SESSION_INVALID_ID, SESSION_EVENT_NOT_FOUND (unknown `afterId`/`beforeId`), SESSION_INVALID_EVENT (no types)
   */
  readTyped?(sessionId: string, options: ReadTypedOptions): Promise<TypedEvents>;
  /** The most recent event with this type and key, or `undefined`. */
  findLatest(sessionId: string, key: EventKey): Promise<SessionEvent | undefined>;
  /**
   * Creates `newSessionId` holding a copy of `sessionId`'s events up to and including
   * `atEventId` (ids kept). The parent is never modified.
   * @throws {KernelStorageError} SESSION_EXISTS / SESSION_EVENT_NOT_FOUND
   */
  branch(sessionId: string, atEventId: string, newSessionId: string): Promise<void>;
  /** The whole session as JSON Lines (one event per line, `\n`-terminated). */
  export(sessionId: string): Promise<string>;
  /**
   * Creates `sessionId` from an export (events are re-addressed to the new session id).
   * @throws {KernelStorageError} SESSION_EXISTS / SESSION_INVALID_EVENT
   */
  import(sessionId: string, jsonl: string): Promise<void>;
  /** Ids of every session, sorted. */
  list(): Promise<readonly string[]>;
}

const EVENT_TYPE_PATTERN = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;

function invalidEvent(field: string, why: string): KernelStorageError {
  return new KernelStorageError('SESSION_INVALID_EVENT', `Invalid session event: ${field} ${why}`);
}

// The events of a batch nearly always share one `at` (the kernel stamps a turn's events with the
// same millisecond's string): a time equal to the last valid one needs no parse.
let lastValidTime: string | undefined;

// Event types seen valid: a plugin writes a handful of types over and over (a story turn, 27
// events of 6 types), so most need no regular-expression match. Bounded, for a caller that
// makes up types.
const validTypes = new Set<string>();
const VALID_TYPES_KEPT = 256;

function validateType(type: unknown): void {
  if (typeof type !== 'string' || !EVENT_TYPE_PATTERN.test(type)) throw invalidEvent('type', `"${String(type)}" must look like "plugin/event-name"`);
  if (validTypes.size >= VALID_TYPES_KEPT) validTypes.clear();
  validTypes.add(type);
}

// Every field but `data`: the part of validation that is the same however the data is stored.
function validateEventFields(event: NewSessionEvent): void {
  if (typeof event !== 'object' || event === null) throw invalidEvent('event', 'must be an object');
  if (!validTypes.has(event.type as string)) validateType(event.type);
  if (typeof event.turnId !== 'string') throw invalidEvent('turnId', 'must be a string');
  if (!Number.isInteger(event.step) || event.step < 0) throw invalidEvent('step', 'must be a non-negative integer');
  if (typeof event.ignorable !== 'boolean') throw invalidEvent('ignorable', 'must be a boolean');
  if (typeof event.at !== 'string' || (event.at !== lastValidTime && Number.isNaN(Date.parse(event.at)))) throw invalidEvent('at', 'must be an ISO-8601 time');
  lastValidTime = event.at;
  if (event.key !== undefined && (typeof event.key !== 'string' || event.key.length === 0 || event.key.length > 512)) {
    throw invalidEvent('key', 'must be a non-empty string of at most 512 characters');
  }
}

/**
 * The JSON text of an event's data: the one serialisation a text store needs.
 * @throws {KernelStorageError} SESSION_INVALID_EVENT when the data is not JSON-serialisable
 */
function serializeEventData(data: unknown): string {
  let text: string | undefined;
  try {
    text = hasFrozenJson() ? stringifyWithFrozen(data) : JSON.stringify(data);
  } catch {
    throw invalidEvent('data', 'must be JSON-serialisable');
  }
  if (text === undefined) throw invalidEvent('data', 'must be JSON-serialisable');
  return text;
}

// `JSON.stringify(data)`, with the text of frozen values (`freezeJson`) reused: as the data, or
// as its members. Frozen values deeper down are stringified like any other value.
function stringifyWithFrozen(data: unknown): string | undefined {
  return frozenJsonText(data) ?? (holdsFrozenJson(data) ? stringifySpliced(data as Record<string, unknown>) : JSON.stringify(data));
}

// True when `data` is a plain object with a member made by `freezeJson`. A `for…in` over a
// plain object's own keys walks V8's enum cache: no array is made for the usual event, which has none.
function holdsFrozenJson(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || Object.getPrototypeOf(data) !== Object.prototype) return false;
  if (typeof (data as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in data) if (frozenJsonText((data as Record<string, unknown>)[key]) !== undefined) return true;
  return false;
}

// `JSON.stringify(data)` with the text of each frozen member spliced in, written member by
// member: each other member is its own `JSON.stringify` (dropped when that gives `undefined`, as
// JSON drops it), in `Object.keys` order (JSON's own). No object is built per event and no text
// is cut: a logged stage request is four short members and the schema's text. The bytes are
// exactly those `JSON.stringify(data)` writes.
function stringifySpliced(data: Record<string, unknown>): string {
  let members = '';
  for (const key of Object.keys(data)) {
    const text = memberJson(key, data[key]);
    if (text === undefined) continue;
    members = members === '' ? `${quotedKey(key)}:${text}` : `${members},${quotedKey(key)}:${text}`;
  }
  return `{${members}}`;
}

// The JSON text of one member, or `undefined` when JSON leaves it out.
function memberJson(key: string, value: unknown): string | undefined {
  const frozen = frozenJsonText(value);
  if (frozen !== undefined) return frozen;
  // JSON calls a member's `toJSON` with the member's key (a bare `JSON.stringify(value)` would
  // pass ''): such a member (a Date, a BigInt given a toJSON, …) is written as a one-member
  // object, which JSON gives that key, and its text cut out.
  if (((typeof value === 'object' && value !== null) || typeof value === 'bigint') && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    // A computed key makes an own member even for `__proto__`.
    const text = JSON.stringify({ [key]: value });
    return text.length === 2 ? undefined : text.slice(quotedKey(key).length + 2, -1);
  }
  return JSON.stringify(value);
}

// Keys as JSON strings: the few keys events use (`stage`, `messages`, `json`, …), quoted once.
// Bounded, for data with made-up keys.
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_KEPT = 256;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size >= QUOTED_KEYS_KEPT) quotedKeys.clear();
    quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * Validates an event before it is appended, so every implementation rejects the same input.
 * @param event - the event to check
 * @throws {KernelStorageError} SESSION_INVALID_EVENT naming the bad field
 */
export function validateNewEvent(event: NewSessionEvent): void {
  validateEventFields(event);
  serializeEventData(event.data);
}

// Reserved on Windows: a session folder with such a name cannot be created there.
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * Validates a batch for `append`: an array of valid events.
 * @param events - the candidate batch
 * @throws {KernelStorageError} SESSION_INVALID_EVENT
 */
export function validateNewEvents(events: unknown): asserts events is readonly NewSessionEvent[] {
  assertArray(events);
  for (const event of events) validateNewEvent(event as NewSessionEvent);
}

// Data texts written ahead of the append (`serializeAhead`), keyed by the event object itself: the
// kernel's queued events are objects no plugin can reach, so the text cannot drift from the event.
const textsAhead = new WeakMap<NewSessionEvent, string>();

/**
 * Writes an event's data text now, for the append that will store it: the kernel calls it for the
 * events a turn has queued while the turn waits for a model, so the commit (on the turn's critical
 * path, right after a wake-up) finds the text made. Data that is not JSON-serialisable is left for
 * the append to reject with its usual error. Kernel-internal: a store just calls {@link serializeNewEvents}.
 * @param event - a queued event whose data nobody changes from here on
 */
export function serializeAhead(event: NewSessionEvent): void {
  if (textsAhead.has(event)) return;
  try {
    textsAhead.set(event, serializeEventData(event.data));
  } catch {
    // The append reports it, with the event's position in its batch.
  }
}

/**
 * Validates a batch for `append` like {@link validateNewEvents} and returns each event's data as
 * JSON text, so a store that writes text serialises every event's data once: the check that it is
 * JSON-serialisable is that serialisation. Build the stored line or row from this text (see
 * {@link storedEventJson}) instead of stringifying `data` again.
 * @param events - the candidate batch
 * @returns the JSON text of each event's `data`, in batch order
 * @throws {KernelStorageError} SESSION_INVALID_EVENT naming the bad field (the same errors as {@link validateNewEvents})
 */
export function serializeNewEvents(events: unknown): string[] {
  assertArray(events);
  return events.map((event: NewSessionEvent) => {
    validateEventFields(event);
    return textsAhead.get(event) ?? serializeEventData(event.data);
  });
}

/**
 * Validates a batch for `append` like {@link validateNewEvents} and returns the events as a store
 * keeps them: only the event fields, in the stored order (`turnId`, `step`, `type`, `ignorable`,
 * `at`, `key` when set, `data`), with `data` a deep copy equal to its JSON round trip but made
 * without writing any text (strings are copied natively, never shared with the caller). For
 * stores that keep objects (the in-memory log); no caller can change what it stored.
 * @param events - the candidate batch
 * @returns a fresh copy of each event
 * @throws {KernelStorageError} SESSION_INVALID_EVENT naming the bad field (the same errors as {@link validateNewEvents})
 */
export function copyNewEvents(events: unknown): NewSessionEvent[] {
  assertArray(events);
  return events.map((event: NewSessionEvent) => {
    validateEventFields(event);
    let data: unknown;
    try {
      data = jsonCopy(event.data);
    } catch {
      throw invalidEvent('data', 'must be JSON-serialisable');
    }
    if (data === undefined) throw invalidEvent('data', 'must be JSON-serialisable');
    // Spelled out (no spread): one object shape per case, built in one step.
    const { turnId, step, type, ignorable, at, key } = event;
    return key === undefined ? { turnId, step, type, ignorable, at, data } : { turnId, step, type, ignorable, at, key, data };
  });
}

/**
 * The JSON text of a stored event in the order every store writes its fields (`id` and
 * `sessionId` when given, then `turnId`, `step`, `type`, `ignorable`, `at`, `key` when set,
 * `data`), with the data's text from {@link serializeNewEvents} spliced in rather than serialised
 * again. Equal to `JSON.stringify` of that ordered object. A store that keeps the address apart
 * (a database row) leaves `id` and `sessionId` out.
 * @param event - the validated event, with its id and session id when the text carries them (its `data`, if any, is not read)
 * @param dataJson - the event's data as JSON text
 * @returns one JSON object, without a line break
 */
export function storedEventJson(event: Omit<NewSessionEvent, 'data'> & { readonly data?: unknown; readonly id?: string; readonly sessionId?: string }, dataJson: string): string {
  const fields: Record<string, unknown> = {};
  if (event.id !== undefined) fields.id = event.id;
  if (event.sessionId !== undefined) fields.sessionId = event.sessionId;
  fields.turnId = event.turnId;
  fields.step = event.step;
  fields.type = event.type;
  fields.ignorable = event.ignorable;
  fields.at = event.at;
  if (event.key !== undefined) fields.key = event.key;
  return `${JSON.stringify(fields).slice(0, -1)},"data":${dataJson}}`;
}

function assertArray(events: unknown): asserts events is readonly NewSessionEvent[] {
  if (!Array.isArray(events)) throw new KernelStorageError('SESSION_INVALID_EVENT', 'Invalid session events: append takes an array of events');
}

/**
 * Validates `readTyped` options: a non-empty array of types, optional ids, a non-negative integer limit.
 * @param options - the candidate options
 * @throws {KernelStorageError} SESSION_INVALID_EVENT
 */
export function validateReadTypedOptions(options: unknown): asserts options is ReadTypedOptions {
  const candidate = options as Partial<ReadTypedOptions> | null;
  const ok =
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.types) &&
    candidate.types.length > 0 &&
    candidate.types.every((type) => typeof type === 'string') &&
    (candidate.afterId === undefined || typeof candidate.afterId === 'string') &&
    (candidate.beforeId === undefined || typeof candidate.beforeId === 'string') &&
    (candidate.limit === undefined || (Number.isInteger(candidate.limit) && candidate.limit >= 0));
  if (!ok) throw new KernelStorageError('SESSION_INVALID_EVENT', 'Invalid readTyped options: {types: string[] (at least one), afterId?, beforeId?, limit?: integer ≥ 0}');
}

/**
 * Validates a `findLatest` key: `{type, key}` of non-empty strings.
 * @param key - the candidate key
 * @throws {KernelStorageError} SESSION_INVALID_EVENT
 */
export function validateEventKey(key: unknown): asserts key is EventKey {
  const candidate = key as Partial<EventKey> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.type !== 'string' || typeof candidate.key !== 'string' || candidate.key.length === 0) {
    throw new KernelStorageError('SESSION_INVALID_EVENT', 'Invalid event key: findLatest takes {type, key} with non-empty strings');
  }
}

/** Session ids: lower-case letters, digits, `_` and `-`, 1–64 characters, starting alphanumeric (not a Windows device name). */
export const SESSION_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * @param sessionId - the id to check
 * @throws {KernelStorageError} SESSION_INVALID_ID
 */
export function validateSessionId(sessionId: string): void {
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId) || WINDOWS_DEVICE_NAME.test(sessionId)) {
    throw new KernelStorageError(
      'SESSION_INVALID_ID',
      `Invalid session id ${JSON.stringify(sessionId)}: use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit (not a device name such as "con")`,
    );
  }
}
