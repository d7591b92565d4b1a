import { constants } from 'node:fs';
import { KernelStorageError, type SessionEvent } from '@troupe/kernel';
import * as z from 'zod';
import { readFileBytes } from '../fs/read-file.js';
import { type EntryStat, errorCode, type StorageFs } from '../fs/storage-fs.js';
import { parseEventLine, sequenceOf } from './event-lines.js';
import { type KnownLine, sha256 } from './index-file.js';
import { lstatQuick } from '../fs/stat-now.js';

/** `session.json`, written when a session is created by branch or import. */
export const SessionMetaSchema = z.object({
  nextSeq: z.number().int().min(1),
  parent: z.object({ sessionId: z.string(), atEventId: z.string() }).optional(),
});

/**
 * Where one event's line sits in `events.jsonl`, with its type (unknown only for lines indexed
 * by an older version without a key) and its key when it has one.
 */
export interface LineSpan {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly type?: string;
  readonly key?: string;
}

/**
 * Supplies the spans of a persisted index that matched the log (see `index-file.ts`).
 * @param eventsSize - the log's current size
 * @returns spans covering the log from byte 0, or undefined to scan the log instead
 */
export type SeedIndex = (eventsSize: number) => Promise<readonly LineSpan[] | undefined>;

/**
 * In-process index of one session's log: id → line span and (type, key) → latest line. Seeded
 * from the persisted `index.jsonl` when it matches the log (else built by one scan) the first
 * time a session is used in a process; after that only the bytes appended since are read.
 * Validated against the file's inode and size on every call.
 */
export class SessionIndex {
  /** Every indexed line, in append order. */
  readonly spans: LineSpan[] = [];
  readonly #byId = new Map<string, number>();
  readonly #byKey = new Map<string, number>();
  readonly #types = new Map<string, string>();
  /** Bytes of complete lines indexed. */
  size = 0;
  /** The line this process appended last, while it is the log's last line (see {@link SessionIndex.addAppended}). */
  lastAppended: KnownLine | undefined;
  /** Whether the spans up to some offset came from the persisted index (not from this scan). */
  seeded = false;
  #inode = '';
  #metaNextSeq = 1;

  /**
   * Catches up with the file; a torn last line (crash mid-append) is truncated when `repair` is
   * given (only under the session lock, when no writer can be mid-append).
   * @param fs - file-system layer
   * @param eventsPath - `events.jsonl`
   * @param metaPath - `session.json`
   * @param repair - re-checks the session lock before truncating; omit to leave a torn tail alone
   * @param seed - after a reset, supplies spans from the persisted index (then only the rest is read)
   * @throws {KernelStorageError} SESSION_CORRUPT when a complete line is damaged; STORAGE_IO when the lock was lost
   */
  async refresh(fs: StorageFs, eventsPath: string, metaPath: string, repair?: () => Promise<void>, seed?: SeedIndex): Promise<void> {
    const stat = await lstatQuick(fs, eventsPath);
    const inode = stat?.signature.split(':')[0] ?? '';
    if (!stat || inode !== this.#inode || stat.size < this.size) {
      await this.#reset(fs, metaPath, inode);
      const spans = stat && seed ? await seed(stat.size) : undefined;
      if (spans && spans.length > 0) {
        for (const span of spans) this.#addSpan(span);
        this.size = spans.at(-1)?.end ?? 0;
        this.seeded = true;
      }
    }
    if (!stat || stat.size === this.size) return;
    const bytes = await readFileBytes(fs, eventsPath, this.size, stat.size);
    const end = bytes.lastIndexOf(0x0a) + 1;
    // Every new line is parsed before any is indexed: a damaged line leaves the index as it was,
    // so the next call reads the same lines again and names the same (real) line number.
    const found: LineSpan[] = [];
    let offset = 0;
    while (offset < end) {
      const newline = bytes.indexOf(0x0a, offset);
      const line = this.spans.length + found.length + 1;
      const event = parseEventLine(bytes.subarray(offset, newline).toString('utf8'), `${eventsPath} line ${line}`);
      found.push(this.#spanOf(event, this.size + offset, this.size + newline + 1));
      offset = newline + 1;
    }
    for (const span of found) this.#addSpan(span);
    this.size += end;
    if (repair && end < bytes.length) {
      await repair();
      const fd = await fs.open(eventsPath, constants.O_WRONLY);
      try {
        await fs.ftruncate(fd, this.size);
        await fs.fsync(fd);
      } finally {
        await fs.close(fd);
      }
    }
  }

  /**
   * Whether the log still is exactly what this index covers: the same file (inode) and no byte
   * more or less than the indexed lines.
   * @param stat - the log's `lstat`
   * @returns true when nothing was appended, cut or replaced since the index caught up
   */
  describes(stat: EntryStat): boolean {
    return this.#inode !== '' && stat.size === this.size && stat.signature.split(':')[0] === this.#inode;
  }

  /**
   * Learns the inode of a log this process just created with its first append (under the lock,
   * before {@link SessionIndex.addAppended}), when the file holds exactly those bytes.
   * @param stat - the new log's `lstat`
   * @param appended - bytes of the first append
   */
  adoptCreatedFile(stat: EntryStat, appended: number): void {
    if (this.#inode !== '' || this.size !== 0 || stat.kind !== 'file' || stat.size !== appended) return;
    this.#inode = stat.signature.split(':')[0] ?? '';
    // Like spans from the persisted index, these were not scanned from the log: a line that turns
    // out not to be the indexed event (a same-size edit in place) rebuilds the index by one scan.
    this.seeded = true;
  }

  /**
   * Records lines just appended by this process.
   * @param events - the appended events, in order
   * @param lineLengths - each one's line length in bytes (with its `\n`)
   * @param lastLine - the last appended line's bytes: its fingerprint is kept, so the persisted index is not read back to fingerprint it
   */
  addAppended(events: readonly SessionEvent[], lineLengths: readonly number[], lastLine?: Uint8Array): void {
    events.forEach((event, index) => {
      const length = lineLengths[index] ?? 0;
      this.#add(event, this.size, this.size + length);
      this.size += length;
    });
    // Only the fingerprint is kept: the line itself may be a whole stage prompt.
    this.lastAppended = lastLine ? { end: this.size, sha256: sha256(lastLine) } : undefined;
  }

  /**
   * The sequence number the next appended event gets.
   * @returns e.g. 43 for `e43`
   */
  nextSeq(): number {
    const last = this.spans.at(-1);
    return Math.max(this.#metaNextSeq, last ? sequenceOf(last.id) + 1 : 1);
  }

  /**
   * Position of an event in append order.
   * @param id - an event id
   * @returns its index in {@link spans}, or undefined when unknown
   */
  positionOf(id: string): number | undefined {
    return this.#byId.get(id);
  }

  /**
   * Span of the latest event with this type and key.
   * @param type - event type
   * @param key - lookup key
   * @returns its line, or undefined when none has that key
   */
  latest(type: string, key: string): LineSpan | undefined {
    const position = this.#byKey.get(`${type}\u0000${key}`);
    return position === undefined ? undefined : this.spans[position];
  }

  /**
   * Spans of the lines starting at or after a byte offset.
   * @param offset - a line boundary
   * @returns those spans, in order
   */
  spansFrom(offset: number): readonly LineSpan[] {
    let low = 0;
    let high = this.spans.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.spans[middle]?.start ?? 0) < offset) low = middle + 1;
      else high = middle;
    }
    return this.spans.slice(low);
  }

  #add(event: SessionEvent, start: number, end: number): void {
    this.#addSpan(this.#spanOf(event, start, end));
  }

  #spanOf(event: SessionEvent, start: number, end: number): LineSpan {
    const type = this.#intern(event.type);
    return event.key === undefined ? { id: event.id, start, end, type } : { id: event.id, start, end, type, key: event.key };
  }

  // One string per type for the whole index (a session has a handful of types, many lines each).
  #intern(type: string): string {
    const known = this.#types.get(type);
    if (known !== undefined) return known;
    this.#types.set(type, type);
    return type;
  }

  #addSpan(given: LineSpan): void {
    const span = given.type !== undefined && given.type !== this.#types.get(given.type) ? { ...given, type: this.#intern(given.type) } : given;
    this.#byId.set(span.id, this.spans.length);
    if (span.key !== undefined && span.type !== undefined) this.#byKey.set(`${span.type}\u0000${span.key}`, this.spans.length);
    this.spans.push(span);
  }

  async #reset(fs: StorageFs, metaPath: string, inode: string): Promise<void> {
    this.spans.length = 0;
    this.#byId.clear();
    this.#byKey.clear();
    this.size = 0;
    this.lastAppended = undefined;
    this.seeded = false;
    this.#inode = inode;
    this.#metaNextSeq = 1;
    try {
      const meta = SessionMetaSchema.safeParse(JSON.parse((await readFileBytes(fs, metaPath)).toString('utf8')));
      if (meta.success) this.#metaNextSeq = meta.data.nextSeq;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw new KernelStorageError('SESSION_CORRUPT', `${metaPath} is unreadable`, { cause: error });
    }
  }
}
