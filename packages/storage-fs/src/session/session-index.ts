import { constants } from 'node:fs';
import { KernelStorageError, type SessionEvent } from '@troupe/kernel';
import * as z from 'zod';
import { readFileBytes } from '../fs/read-file.js';
import { errorCode, type StorageFs } from '../fs/storage-fs.js';
import { parseEventLine, sequenceOf } from './event-lines.js';

/** `session.json`, written when a session is created by branch or import. */
export const SessionMetaSchema = z.object({
  nextSeq: z.number().int().min(1),
  parent: z.object({ sessionId: z.string(), atEventId: z.string() }).optional(),
});

/** Where one event's line sits in `events.jsonl`. */
interface LineSpan {
  readonly id: string;
  readonly start: number;
  readonly end: number;
}

/**
 * In-process index of one session's log: id → line span and (type, key) → latest line. Built by
 * one scan the first time a session is used in a process, then only the bytes other processes
 * appended are read. Validated against the file's inode and size on every call.
 */
export class SessionIndex {
  /** Every indexed line, in append order. */
  readonly spans: LineSpan[] = [];
  readonly #byId = new Map<string, number>();
  readonly #byKey = new Map<string, number>();
  /** Bytes of complete lines indexed. */
  size = 0;
  #inode = '';
  #metaNextSeq = 1;

  /**
   * Catches up with the file; a torn last line (crash mid-append) is truncated when `repair` is
   * given (only under the session lock, when no writer can be mid-append).
   * @param fs - file-system layer
   * @param eventsPath - `events.jsonl`
   * @param metaPath - `session.json`
   * @param repair - re-checks the session lock before truncating; omit to leave a torn tail alone
   * @throws {KernelStorageError} SESSION_CORRUPT when a complete line is damaged; STORAGE_IO when the lock was lost
   */
  async refresh(fs: StorageFs, eventsPath: string, metaPath: string, repair?: () => Promise<void>): Promise<void> {
    const stat = await fs.lstat(eventsPath);
    const inode = stat?.signature.split(':')[0] ?? '';
    if (!stat || inode !== this.#inode || stat.size < this.size) await this.#reset(fs, metaPath, inode);
    if (!stat || stat.size === this.size) return;
    const bytes = await readFileBytes(fs, eventsPath, this.size, stat.size);
    const end = bytes.lastIndexOf(0x0a) + 1;
    let offset = 0;
    while (offset < end) {
      const newline = bytes.indexOf(0x0a, offset);
      const event = parseEventLine(bytes.subarray(offset, newline).toString('utf8'), `${eventsPath} line ${this.spans.length + 1}`);
      this.#add(event, this.size + offset, this.size + newline + 1);
      offset = newline + 1;
    }
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
   * Records lines just appended by this process.
   * @param events - the appended events, in order
   * @param lineLengths - each one's line length in bytes (with its `\n`)
   */
  addAppended(events: readonly SessionEvent[], lineLengths: readonly number[]): void {
    events.forEach((event, index) => {
      const length = lineLengths[index] ?? 0;
      this.#add(event, this.size, this.size + length);
      this.size += length;
    });
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

  #add(event: SessionEvent, start: number, end: number): void {
    this.#byId.set(event.id, this.spans.length);
    if (event.key !== undefined) this.#byKey.set(`${event.type}\u0000${event.key}`, this.spans.length);
    this.spans.push({ id: event.id, start, end });
  }

  async #reset(fs: StorageFs, metaPath: string, inode: string): Promise<void> {
    this.spans.length = 0;
    this.#byId.clear();
    this.#byKey.clear();
    this.size = 0;
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
