import type { ReadTypedOptions, SessionEvent, TypedEvents } from '@troupe/kernel';
import { readFileBytes } from '../fs/read-file.js';
import type { StorageFs } from '../fs/storage-fs.js';
import { parseEventLine, splitLines } from './event-lines.js';
import { eventNotFound, IndexMismatch } from './session-errors.js';
import type { LineSpan, SessionIndex } from './session-index.js';

// Lines closer than this are read with one call (the gap is read and skipped): small, so the
// prompt-carrying lines between two commits are not read after all.
const COALESCE_GAP = 256;

/**
 * The `readTyped` of an indexed log: picks the matching lines from the index (newest first,
 * stopping at `limit`), reads them in few calls and checks every line is its indexed event.
 * @param fs - file-system layer
 * @param index - the session's up-to-date index
 * @param eventsPath - `events.jsonl`
 * @param sessionId - the session, for errors
 * @param options - validated options
 * @returns the events in order and how many matching ones the limit left out
 * @throws {KernelStorageError} SESSION_EVENT_NOT_FOUND for an unknown `afterId`/`beforeId`; IndexMismatch when a line is not its indexed event
 */
export async function readTypedLines(fs: StorageFs, index: SessionIndex, eventsPath: string, sessionId: string, options: ReadTypedOptions): Promise<TypedEvents> {
  const position = (id: string | undefined) => {
    if (id === undefined) return undefined;
    const at = index.positionOf(id);
    if (at === undefined) throw eventNotFound(sessionId, id);
    return at;
  };
  const from = (position(options.afterId) ?? -1) + 1;
  const to = position(options.beforeId) ?? index.spans.length;
  const types = new Set(options.types);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const picked: LineSpan[] = [];
  let earlier = 0;
  for (let at = to - 1; at >= from; at--) {
    const span = index.spans[at]!;
    // A line indexed without its type (an index file of an older version): read the range whole.
    if (span.type === undefined) return readRangeFiltered(fs, index, eventsPath, from, to, types, limit);
    if (!types.has(span.type)) continue;
    if (picked.length < limit) picked.push(span);
    else earlier += 1;
  }
  picked.reverse();
  const events: SessionEvent[] = [];
  for (let first = 0; first < picked.length; ) {
    let last = first;
    while (last + 1 < picked.length && picked[last + 1]!.start - picked[last]!.end <= COALESCE_GAP) last++;
    const start = picked[first]!.start;
    const bytes = await readFileBytes(fs, eventsPath, start, picked[last]!.end);
    for (let n = first; n <= last; n++) {
      const span = picked[n]!;
      if (span.start - start < 0 || span.end - start > bytes.length || bytes[span.end - start - 1] !== 0x0a) throw new IndexMismatch();
      const event = parseEventLine(bytes.subarray(span.start - start, span.end - start - 1).toString('utf8'), `${eventsPath} event ${span.id}`);
      if (event.id !== span.id || event.type !== span.type) throw new IndexMismatch();
      events.push(event);
    }
    first = last + 1;
  }
  return { events, earlier };
}

async function readRangeFiltered(fs: StorageFs, index: SessionIndex, eventsPath: string, from: number, to: number, types: ReadonlySet<string>, limit: number): Promise<TypedEvents> {
  const first = index.spans[from];
  const last = index.spans[to - 1];
  if (!first || !last) return { events: [], earlier: 0 };
  const lines = splitLines(await readFileBytes(fs, eventsPath, first.start, last.end));
  if (lines.length !== to - from) throw new IndexMismatch();
  const matching = lines
    .map((line, offset) => parseEventLine(line, `${eventsPath} line ${from + offset + 1}`))
    .filter((event, offset) => {
      if (event.id !== index.spans[from + offset]?.id) throw new IndexMismatch();
      return types.has(event.type);
    });
  const kept = Math.min(matching.length, limit);
  return { events: matching.slice(matching.length - kept), earlier: matching.length - kept };
}
