import {
  type EventKey,
  type HeldSessionTurn,
  KernelStorageError,
  type LockSessionTurnOptions,
  type NewSessionEvent,
  type ReadEventsOptions,
  type ReadTypedOptions,
  type SessionEvent,
  type SessionLog,
  type SessionTurnLock,
  type TypedEvents,
} from '@troupe/kernel';
import { parseExport, serializeNewEvents, validateEventKey, validateReadTypedOptions, validateSessionId } from '@troupe/kernel/storage';
import type { Database, Queryable, Row } from '../db/database.js';
import { SESSION_EVENTS_CHANNEL } from '../live/channels.js';
import type { PgTurnLocks } from '../turn/pg-turn-locks.js';
import { type EventColumns, eventColumns, eventFromRow, lookupKeyOf, sequenceOf } from './event-rows.js';

// One statement per append: the session row is created or bumped (its row lock orders appends
// of one session across processes), the events are inserted with the ids it reserved, and the
// append is announced on commit. One statement is one transaction: all events or none.
const APPEND = `
WITH session AS (
  INSERT INTO troupe_sessions AS s (session_id, next_seq, length) VALUES ($1, 1 + $2::bigint, $2::bigint)
  ON CONFLICT (session_id) DO UPDATE SET next_seq = s.next_seq + $2::bigint, length = s.length + $2::bigint
  RETURNING s.next_seq - $2::bigint AS first_seq, s.length - $2::bigint AS first_position
), inserted AS (
  INSERT INTO troupe_session_events (session_id, position, seq, type, lookup_key, body)
  SELECT $1, session.first_position + e.ord - 1, session.first_seq + e.ord - 1, e.type, e.lookup_key, e.body
  FROM session, unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(type, lookup_key, body, ord)
  RETURNING 1
)
SELECT first_seq, (SELECT count(*) FROM inserted) AS inserted,
  CASE WHEN $2::bigint > 0 THEN pg_notify('${SESSION_EVENTS_CHANNEL}', json_build_object('schema', current_schema(), 'sessionId', $1::text, 'lastId', 'e' || (first_seq + $2::bigint - 1))::text) END AS notified
FROM session`;

// One type's events in a position range ($3 < position < $4, no upper bound when $4 is NULL):
// a backward range of the (session_id, type, position) index.
const TYPED_RANGE = 'FROM troupe_session_events WHERE session_id = $1 AND type = $2 AND position > $3 AND ($4::bigint IS NULL OR position < $4)';

// Rows of one import or branch batch are inserted in chunks of this many (bounded parameters).
const INSERT_CHUNK = 5_000;

/**
 * {@link SessionLog} on PostgreSQL: one `troupe_sessions` row per session (next id number and
 * length) and one `troupe_session_events` row per event with its append position, id number,
 * type and JSON-encoded lookup key; `findLatest` is one probe of the `(session, type, key,
 * position)` index.
 */
export class PgSessionLog implements SessionLog, SessionTurnLock {
  readonly #db: Database;
  readonly #turnLocks: PgTurnLocks;

  /**
   * @param db - the storage's database (see `postgresStorage()`)
   * @param turnLocks - the per-session turn locks
   */
  constructor(db: Database, turnLocks: PgTurnLocks) {
    this.#db = db;
    this.#turnLocks = turnLocks;
  }

  /**
   * Runs `work` holding the session's turn lock, across every process on the database (the
   * kernel's `SessionTurnLock` port: a harness on this log serialises each session's turns with
   * it). A PostgreSQL advisory lock on its own connection; see {@link PgTurnLocks}.
   * @param sessionId - the session (it need not exist yet)
   * @param work - the turn
   * @param options - `signal` cancels the wait
   */
  lockSessionTurn<T>(sessionId: string, work: (turn: HeldSessionTurn) => Promise<T>, options?: LockSessionTurnOptions): Promise<T> {
    return this.#turnLocks.lockSessionTurn(sessionId, work, options);
  }

  async append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    // The one serialisation of each event's data: it is the validation and the stored body.
    const dataTexts = serializeNewEvents(events);
    const columns = events.map((event, index) => eventColumns(event, dataTexts[index]));
    const rows = await this.#db.query(`append to session "${sessionId}"`, APPEND, [
      sessionId,
      columns.length,
      columns.map((column) => column.type),
      columns.map((column) => column.lookupKey),
      columns.map((column) => column.body),
    ]);
    const firstSeq = Number(rows[0]?.first_seq);
    return columns.map((column, index) => eventFromRow(sessionId, { seq: firstSeq + index, body: column.body }));
  }

  async read(sessionId: string, options: ReadEventsOptions = {}): Promise<readonly SessionEvent[]> {
    validateSessionId(sessionId);
    return this.#db.withClient(`read session "${sessionId}"`, async (client) => {
      let after = -1;
      if (options.afterId !== undefined) {
        const anchor = await positionOf(client, sessionId, options.afterId);
        if (anchor === undefined) throw eventNotFound(sessionId, options.afterId);
        after = anchor;
      }
      const rows = await client.query('SELECT seq, body FROM troupe_session_events WHERE session_id = $1 AND position > $2 ORDER BY position', [sessionId, after]);
      return rows.map((row) => eventFromRow(sessionId, row));
    });
  }

  /**
   * The events of some types in a range, newest `limit` of them (the kernel's bounded history
   * read after a process start). One backward range of the `(session, type, position)` index per
   * type, each stopping after `limit` rows, merged by position: the bodies of other events, and
   * of older events of these types, are never read. An index-only count gives `earlier`.
   */
  async readTyped(sessionId: string, options: ReadTypedOptions): Promise<TypedEvents> {
    validateSessionId(sessionId);
    validateReadTypedOptions(options);
    return this.#db.withClient(`read ${options.types.join(', ')} of session "${sessionId}"`, async (client) => {
      const bound = async (eventId: string | undefined): Promise<number | null> => {
        if (eventId === undefined) return null;
        const at = await positionOf(client, sessionId, eventId);
        if (at === undefined) throw eventNotFound(sessionId, eventId);
        return at;
      };
      const after = (await bound(options.afterId)) ?? -1;
      const before = await bound(options.beforeId);
      const rows: Row[] = [];
      for (const type of new Set(options.types)) {
        // LIMIT NULL is LIMIT ALL: without a limit every matching event is returned.
        rows.push(...(await client.query(`SELECT position, seq, body ${TYPED_RANGE} ORDER BY position DESC LIMIT $5`, [sessionId, type, after, before, options.limit ?? null])));
      }
      rows.sort((a, b) => Number(a.position) - Number(b.position));
      const kept = options.limit === undefined ? rows : rows.slice(Math.max(0, rows.length - options.limit));
      const events = kept.map((row) => eventFromRow(sessionId, row));
      if (options.limit === undefined || rows.length < options.limit) return { events, earlier: 0 };
      const counted = await client.query(
        'SELECT count(*) AS matching FROM troupe_session_events WHERE session_id = $1 AND type = ANY($2::text[]) AND position > $3 AND ($4::bigint IS NULL OR position < $4)',
        [sessionId, [...new Set(options.types)], after, before],
      );
      return { events, earlier: Number(counted[0]?.matching ?? 0) - events.length };
    });
  }

  async findLatest(sessionId: string, key: EventKey): Promise<SessionEvent | undefined> {
    validateSessionId(sessionId);
    validateEventKey(key);
    const rows = await this.#db.query(
      `find ${key.type} in session "${sessionId}"`,
      'SELECT seq, body FROM troupe_session_events WHERE session_id = $1 AND type = $2 AND lookup_key = $3 ORDER BY position DESC LIMIT 1',
      [sessionId, key.type, lookupKeyOf(key.key)],
    );
    return rows[0] ? eventFromRow(sessionId, rows[0]) : undefined;
  }

  async branch(sessionId: string, atEventId: string, newSessionId: string): Promise<void> {
    validateSessionId(sessionId);
    validateSessionId(newSessionId);
    await this.#db.transaction(`branch session "${sessionId}" at ${String(atEventId)}`, async (tx) => {
      const parent = await tx.query('SELECT next_seq FROM troupe_sessions WHERE session_id = $1', [sessionId]);
      await createSession(tx, newSessionId);
      const at = parent[0] ? await positionOf(tx, sessionId, atEventId) : undefined;
      if (!parent[0] || at === undefined) throw eventNotFound(sessionId, atEventId);
      // Copied inside the database: the parent's rows are read, never written.
      await tx.query(
        'INSERT INTO troupe_session_events (session_id, position, seq, type, lookup_key, body) SELECT $2, position, seq, type, lookup_key, body FROM troupe_session_events WHERE session_id = $1 AND position <= $3',
        [sessionId, newSessionId, at],
      );
      // The branch continues the parent's numbering, so its new ids never reuse a parent id.
      await tx.query('UPDATE troupe_sessions SET next_seq = $2, length = $3 WHERE session_id = $1', [newSessionId, Number(parent[0].next_seq), at + 1]);
    });
  }

  async export(sessionId: string): Promise<string> {
    const events = await this.read(sessionId);
    return events.map((event) => `${JSON.stringify(event)}\n`).join('');
  }

  async import(sessionId: string, jsonl: string): Promise<void> {
    validateSessionId(sessionId);
    const events = parseExport(jsonl);
    const columns = events.map((event) => eventColumns(event));
    const seqs = events.map((event) => sequenceOf(event.id) ?? 0);
    await this.#db.transaction(`import session "${sessionId}"`, async (tx) => {
      await createSession(tx, sessionId);
      for (let start = 0; start < columns.length; start += INSERT_CHUNK) {
        await insertEvents(tx, sessionId, start, seqs.slice(start, start + INSERT_CHUNK), columns.slice(start, start + INSERT_CHUNK));
      }
      await tx.query('UPDATE troupe_sessions SET next_seq = $2, length = $3 WHERE session_id = $1', [sessionId, seqs.reduce((max, seq) => Math.max(max, seq), 0) + 1, columns.length]);
    });
  }

  async list(): Promise<readonly string[]> {
    const rows = await this.#db.query('list sessions', 'SELECT session_id FROM troupe_sessions');
    return rows.map((row) => String(row.session_id)).sort();
  }

  /**
   * Every intact event of a session whose rows were damaged (edited by hand), as an export,
   * plus the 1-based positions of the rows left out (like the filesystem store's `salvage`).
   * @param sessionId - the session
   */
  async salvage(sessionId: string): Promise<{ readonly jsonl: string; readonly skippedLines: readonly number[] }> {
    validateSessionId(sessionId);
    const rows = await this.#db.query(`salvage session "${sessionId}"`, 'SELECT position, seq, body FROM troupe_session_events WHERE session_id = $1 ORDER BY position', [sessionId]);
    const lines: string[] = [];
    const skippedLines: number[] = [];
    for (const row of rows) {
      try {
        lines.push(`${JSON.stringify(eventFromRow(sessionId, row))}\n`);
      } catch {
        skippedLines.push(Number(row.position) + 1);
      }
    }
    return { jsonl: lines.join(''), skippedLines };
  }

  /**
   * Removes a session and its events (beyond the port, like the filesystem store's `delete`).
   * @returns false when it did not exist
   */
  async delete(sessionId: string): Promise<boolean> {
    validateSessionId(sessionId);
    const rows = await this.#db.query(`delete session "${sessionId}"`, 'DELETE FROM troupe_sessions WHERE session_id = $1 RETURNING session_id', [sessionId]);
    return rows.length > 0;
  }
}

async function createSession(tx: Queryable, sessionId: string): Promise<void> {
  const created = await tx.query('INSERT INTO troupe_sessions (session_id, next_seq, length) VALUES ($1, 1, 0) ON CONFLICT (session_id) DO NOTHING RETURNING session_id', [sessionId]);
  if (created.length === 0) throw new KernelStorageError('SESSION_EXISTS', `Session "${sessionId}" already exists`);
}

async function insertEvents(tx: Queryable, sessionId: string, firstPosition: number, seqs: readonly number[], columns: readonly EventColumns[]): Promise<void> {
  await tx.query(
    `INSERT INTO troupe_session_events (session_id, position, seq, type, lookup_key, body)
     SELECT $1, $2::bigint + e.ord - 1, e.seq, e.type, e.lookup_key, e.body
     FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(seq, type, lookup_key, body, ord)`,
    [sessionId, firstPosition, seqs, columns.map((column) => column.type), columns.map((column) => column.lookupKey), columns.map((column) => column.body)],
  );
}

async function positionOf(client: Queryable, sessionId: string, eventId: unknown): Promise<number | undefined> {
  const seq = sequenceOf(eventId);
  if (seq === undefined) return undefined;
  const rows = await client.query('SELECT position FROM troupe_session_events WHERE session_id = $1 AND seq = $2', [sessionId, seq]);
  return rows[0] ? Number(rows[0].position) : undefined;
}

function eventNotFound(sessionId: string, eventId: unknown): KernelStorageError {
  return new KernelStorageError('SESSION_EVENT_NOT_FOUND', `Session "${sessionId}" has no event ${JSON.stringify(eventId)}`);
}
