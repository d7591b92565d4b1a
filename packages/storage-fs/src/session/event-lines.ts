import { KernelStorageError, type NewSessionEvent, type SessionEvent } from '@troupe/kernel';
import { StoredEventFieldsSchema, storedEventJson } from '@troupe/kernel/storage';
import * as z from 'zod';

/** One stored line, validated when read back from disk (a trust boundary: players edit files). Field order as written. */
export const StoredEventSchema = z.object({
  id: z.string().regex(/^e[1-9][0-9]*$/),
  sessionId: z.string(),
  ...StoredEventFieldsSchema.shape,
});

/**
 * The exact line stored for an event: the kernel's fixed field order (`storedEventJson`), so the
 * bytes never depend on how the caller built the object, and `\n`-terminated.
 * @param event - the event with id and session id
 * @param dataJson - the event's data as JSON text, when the caller already has it (an append: `serializeNewEvents`)
 * @returns one JSON line
 */
export function eventLine(event: NewSessionEvent & { id: string; sessionId: string }, dataJson: string = JSON.stringify(event.data)): string {
  return `${storedEventJson(event, dataJson)}\n`;
}

/**
 * An appended event as `append` returns it, equal to its stored line parsed back but without the
 * parse: the fields are the validated primitives the line was written from, and `data` is an own,
 * enumerable accessor that parses the data's stored text on first read and keeps that value
 * (assignable, like any event handed out) — most callers only want the ids, and the data of a
 * stage request is a whole prompt.
 * @param event - the validated event with its id and session id
 * @param dataJson - its data's JSON text, as written into the line
 * @returns a fresh event sharing nothing mutable with `event`
 */
export function appendedEvent(event: NewSessionEvent & { id: string; sessionId: string }, dataJson: string): SessionEvent {
  const { id, sessionId, turnId, type, ignorable, at, key } = event;
  // The only field whose JSON round trip is not itself: -0 is written as 0.
  const step = event.step === 0 ? 0 : event.step;
  let data: unknown;
  let parsed = false;
  const fields = key === undefined ? { id, sessionId, turnId, step, type, ignorable, at } : { id, sessionId, turnId, step, type, ignorable, at, key };
  return {
    ...fields,
    get data() {
      if (!parsed) {
        data = JSON.parse(dataJson);
        parsed = true;
      }
      return data;
    },
    set data(value) {
      data = value;
      parsed = true;
    },
  };
}

/**
 * Parses one stored line.
 * @param line - the line without its `\n`
 * @param where - for the error message (file and line number)
 * @throws {KernelStorageError} SESSION_CORRUPT
 */
export function parseEventLine(line: string, where: string): SessionEvent {
  try {
    return StoredEventSchema.parse(JSON.parse(line)) as SessionEvent;
  } catch (error) {
    throw new KernelStorageError('SESSION_CORRUPT', `${where} is damaged (not a valid event line); restore it from an export`, { cause: error });
  }
}

/**
 * The sequence number of an id (`e42` → 42).
 * @param id - an event id
 */
export function sequenceOf(id: string): number {
  return Number.parseInt(id.slice(1), 10);
}

/**
 * Splits bytes read from `events.jsonl` into their complete lines. Callers only ever read whole
 * lines, so the text ends with `\n` and the empty piece after it is dropped.
 * @param bytes - whole `\n`-terminated lines
 * @returns the lines without their `\n`
 */
export function splitLines(bytes: Buffer): string[] {
  return bytes.toString('utf8').split('\n').slice(0, -1);
}
