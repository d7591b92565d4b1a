import { KernelStorageError, type NewSessionEvent, type SessionEvent } from '@troupe/kernel';
import { StoredEventFieldsSchema, storedEventJson } from '@troupe/kernel/storage';
import type * as z from 'zod';
import type { Row } from '../db/database.js';

// What is stored per event: the kernel's stored-event fields, everything but `id` and `sessionId`
// (they follow from the row, so branch and import copy rows without rewriting them). Validated
// when read back: the database is shared, and rows can be edited by hand.

/** The columns of one event row, computed before it is written. */
export interface EventColumns {
  readonly type: string;
  readonly lookupKey: string | null;
  readonly body: string;
}

/**
 * The stored form of an event. The body keeps the same field order as the filesystem store's
 * lines, so exports from both are identical.
 * @param event - a validated event
 * @param dataJson - its data as JSON text, from `serializeNewEvents` (serialised here when not given)
 */
export function eventColumns(event: NewSessionEvent, dataJson: string = JSON.stringify(event.data)): EventColumns {
  const { turnId, step, type, ignorable, at, key } = event;
  // Only the event fields: the address (`id`, `sessionId`) follows from the row.
  const body = storedEventJson({ turnId, step, type, ignorable, at, ...(key === undefined ? {} : { key }), data: null }, dataJson);
  return { type, lookupKey: key === undefined ? null : lookupKeyOf(key), body };
}

/**
 * The `lookup_key` column for a key: JSON-encoded, so every string (U+0000 included, which a
 * `text` column rejects) is stored exactly and compared exactly.
 * @param key - the event's lookup key
 */
export function lookupKeyOf(key: string): string {
  return JSON.stringify(key);
}

/**
 * Rebuilds an event from its row.
 * @param sessionId - the session it belongs to
 * @param row - `seq` and `body`
 * @throws {KernelStorageError} SESSION_CORRUPT when the stored body is not an event
 */
export function eventFromRow(sessionId: string, row: Row): SessionEvent {
  const seq = Number(row.seq);
  let body: z.infer<typeof StoredEventFieldsSchema>;
  try {
    body = StoredEventFieldsSchema.parse(JSON.parse(String(row.body)));
  } catch (error) {
    throw new KernelStorageError('SESSION_CORRUPT', `Event e${seq} of session "${sessionId}" is damaged in the database (not a valid event); restore the session from an export`, {
      cause: error,
    });
  }
  const event: Record<string, unknown> = { id: `e${seq}`, sessionId, turnId: body.turnId, step: body.step, type: body.type, ignorable: body.ignorable, at: body.at };
  if (body.key !== undefined) event.key = body.key;
  event.data = body.data;
  return event as unknown as SessionEvent;
}

/**
 * The sequence number of an event id, or undefined when it is not of the form `e<n>`.
 * @param id - a candidate event id
 */
export function sequenceOf(id: unknown): number | undefined {
  if (typeof id !== 'string' || !/^e[1-9][0-9]{0,15}$/.test(id)) return undefined;
  const seq = Number(id.slice(1));
  return Number.isSafeInteger(seq) ? seq : undefined;
}
