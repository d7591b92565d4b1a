import { createHash } from 'node:crypto';
import { join } from 'node:path';
import * as z from 'zod';
import { atomicWriteFile, writeFully } from '../fs/atomic-write.js';
import { readFileBytes } from '../fs/read-file.js';
import { APPEND_NOFOLLOW, type StorageFs } from '../fs/storage-fs.js';
import type { LineSpan } from './session-index.js';
import { lstatQuick } from '../fs/stat-now.js';

// `index.jsonl` beside `events.jsonl`: a store-private cache of the session index, so a fresh
// process finds an event without scanning the log. Line 1 is a header; every further line is a
// segment covering the event lines in bytes [from, to) of the log, in columns (one JSON.parse per
// segment, not per event). Segments chain (`from` = previous `to`) starting at 0, and each one
// carries the SHA-256 of the last line it covers: the fingerprint checked against the log on
// open. It is never fsynced and may lag the log or be lost: the log stays the only truth.

/** Name of the persisted index inside a session folder. */
export const INDEX_FILE = 'index.jsonl';
const HEADER = { format: 'troupe-session-index', version: 1 } as const;
const HEADER_LINE = `${JSON.stringify(HEADER)}\n`;
/** More segments than this are compacted into one on open (appends add one segment per batch). */
const MAX_SEGMENTS = 64;
/** 256 MiB: an index of ~6 million events. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

const HeaderSchema = z.object({ format: z.literal(HEADER.format), version: z.literal(HEADER.version) });

/** One segment line, validated when read back (a trust boundary: anything may edit the folder). */
const SegmentSchema = z
  .object({
    from: z.number().int().min(0),
    to: z.number().int().positive(),
    last: z.string().regex(/^[0-9a-f]{64}$/),
    ids: z.array(z.string()).min(1),
    lengths: z.array(z.number().int().positive()),
    types: z.array(z.string().nullable()),
    keys: z.array(z.string().nullable()),
  })
  .refine((s) => s.lengths.length === s.ids.length && s.types.length === s.ids.length && s.keys.length === s.ids.length, 'columns differ in length');

/** What this process knows about the index file (to append to it without rereading it). */
export interface IndexFileState {
  /** Bytes of the log the file covers. */
  covered: number;
  /** Bytes of the file that hold whole, valid lines. */
  fileSize: number;
  /** Inode of the file (an atomic rewrite by another process changes it). */
  inode: string;
}

/** The fingerprint of a line of the log the caller wrote itself: its end offset and the SHA-256 of its bytes (with the `\n`). */
export interface KnownLine {
  readonly end: number;
  readonly sha256: string;
}

/** A persisted index that matched the log. */
export interface LoadedIndex {
  /** Every covered line, in order from byte 0. */
  readonly spans: LineSpan[];
  /** Where the file stands (undefined when it should be rewritten: fragmented or torn). */
  readonly state: IndexFileState | undefined;
}

/**
 * Loads `index.jsonl` and checks it against the log: segments must chain from byte 0, and the
 * last covered line of the log must hash to the recorded fingerprint.
 * @param fs - file-system layer
 * @param indexPath - `index.jsonl`
 * @param eventsPath - `events.jsonl`
 * @param eventsSize - the log's current size
 * @returns the covered spans, or undefined when the file is missing, unreadable or does not match
 */
export async function loadIndexFile(fs: StorageFs, indexPath: string, eventsPath: string, eventsSize: number): Promise<LoadedIndex | undefined> {
  let bytes: Buffer;
  let inode: string;
  try {
    const stat = await lstatQuick(fs, indexPath);
    // Untrusted like every store-private file; one bigger than this is not ours (rebuilt instead).
    if (stat?.kind !== 'file' || stat.size > MAX_INDEX_BYTES) return undefined;
    inode = stat.signature.split(':')[0] ?? '';
    bytes = await readFileBytes(fs, indexPath);
  } catch {
    return undefined; // a cache: any trouble reading it means a rebuild
  }
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd < 0 || !isHeader(bytes.subarray(0, headerEnd).toString('utf8'))) return undefined;
  const { spans, covered, end, segments, clean, last } = parseSegments(bytes, headerEnd + 1, 0);
  if (covered > eventsSize) return undefined; // the log was cut below what the index covers
  const lastSpan = spans.at(-1);
  if (lastSpan && (await lineHash(fs, eventsPath, lastSpan)) !== last) return undefined; // another log
  const tidy = clean && segments <= MAX_SEGMENTS;
  return { spans, state: tidy ? { covered, fileSize: end, inode } : undefined };
}

/**
 * Reads the segments other processes appended since `state` and advances it.
 * @param fs - file-system layer
 * @param indexPath - `index.jsonl`
 * @param state - what this process knew; updated in place
 * @returns false when the file changed in a way that needs a rewrite
 */
export async function catchUpIndexFile(fs: StorageFs, indexPath: string, state: IndexFileState): Promise<boolean> {
  const stat = await lstatQuick(fs, indexPath);
  if (stat?.kind !== 'file' || stat.signature.split(':')[0] !== state.inode || stat.size < state.fileSize) return false;
  if (stat.size === state.fileSize) return true;
  const bytes = await readFileBytes(fs, indexPath, state.fileSize, stat.size);
  const { covered, end, clean } = parseSegments(bytes, 0, state.covered);
  if (!clean) return false;
  state.covered = covered;
  state.fileSize += end;
  return true;
}

/**
 * Appends one segment for `spans` (which must start at `state.covered`); not fsynced (a cache).
 * @param fs - file-system layer
 * @param indexPath - `index.jsonl`
 * @param eventsPath - `events.jsonl` (to fingerprint the last line)
 * @param state - updated in place
 * @param spans - the lines to add
 * @param lastLine - the fingerprint of the log's last line when the caller wrote it (just appended), so it is not read back
 */
export async function appendIndexSegment(fs: StorageFs, indexPath: string, eventsPath: string, state: IndexFileState, spans: readonly LineSpan[], lastLine?: KnownLine): Promise<void> {
  const line = Buffer.from(await segmentLine(fs, eventsPath, spans, lastLine), 'utf8');
  const fd = await fs.open(indexPath, APPEND_NOFOLLOW, 0o644);
  try {
    await writeFully(fs, fd, line, state.fileSize);
  } catch (error) {
    await fs.ftruncate(fd, state.fileSize).catch(() => undefined);
    throw error;
  } finally {
    await fs.close(fd);
  }
  state.fileSize += line.length;
  state.covered = spans.at(-1)?.end ?? state.covered;
}

/**
 * Replaces `index.jsonl` atomically with one segment for every span.
 * @param fs - file-system layer
 * @param dir - the session folder
 * @param eventsPath - `events.jsonl` (to fingerprint the last line)
 * @param spans - every line of the log, from byte 0
 * @returns the new file's state
 */
export async function rewriteIndexFile(fs: StorageFs, dir: string, eventsPath: string, spans: readonly LineSpan[]): Promise<IndexFileState> {
  const text = HEADER_LINE + (spans.length > 0 ? await segmentLine(fs, eventsPath, spans) : '');
  await atomicWriteFile(fs, dir, INDEX_FILE, Buffer.from(text, 'utf8'));
  const stat = await lstatQuick(fs, join(dir, INDEX_FILE));
  return { covered: spans.at(-1)?.end ?? 0, fileSize: Buffer.byteLength(text), inode: stat?.signature.split(':')[0] ?? '' };
}

/**
 * The index file content for a log about to be written (branch, import).
 * @param lines - the log's lines, each with its `\n`
 * @param events - the matching events
 * @returns the bytes of `index.jsonl`
 */
export function indexFileFor(lines: readonly string[], events: readonly { id: string; type: string; key?: string }[]): Buffer {
  const spans: LineSpan[] = [];
  let offset = 0;
  lines.forEach((line, at) => {
    const event = events[at];
    if (!event) return;
    const end = offset + Buffer.byteLength(line, 'utf8');
    spans.push(event.key === undefined ? { id: event.id, start: offset, end, type: event.type } : { id: event.id, start: offset, end, type: event.type, key: event.key });
    offset = end;
  });
  const lastLine = lines.at(-1);
  const segment = lastLine === undefined ? '' : encodeSegment(spans, sha256(Buffer.from(lastLine, 'utf8')));
  return Buffer.from(HEADER_LINE + segment, 'utf8');
}

function isHeader(line: string): boolean {
  try {
    return HeaderSchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

function parseSegments(bytes: Buffer, start: number, from: number) {
  const spans: LineSpan[] = [];
  let covered = from;
  let end = start;
  let segments = 0;
  let last = '';
  let clean = true;
  while (end < bytes.length) {
    const newline = bytes.indexOf(0x0a, end);
    const segment = newline < 0 ? undefined : parseSegment(bytes.subarray(end, newline).toString('utf8'));
    if (!segment || segment.from !== covered) {
      clean = false; // a torn or foreign tail: keep the valid prefix, rewrite the file
      break;
    }
    let offset = covered;
    segment.ids.forEach((id, at) => {
      const length = segment.lengths[at] ?? 0;
      const type = segment.types[at];
      const key = segment.keys[at];
      // A type without a key is recorded since the log can be read by type; older files have none.
      const span = { id, start: offset, end: offset + length, ...(type != null ? { type } : {}) };
      spans.push(type != null && key != null ? { ...span, type, key } : span);
      offset += length;
    });
    if (offset !== segment.to) {
      spans.length -= segment.ids.length;
      clean = false;
      break;
    }
    covered = segment.to;
    last = segment.last;
    end = newline + 1;
    segments += 1;
  }
  return { spans, covered, end, segments, clean, last };
}

function parseSegment(line: string): z.infer<typeof SegmentSchema> | undefined {
  try {
    const parsed = SegmentSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function segmentLine(fs: StorageFs, eventsPath: string, spans: readonly LineSpan[], lastLine?: KnownLine): Promise<string> {
  const lastSpan = spans.at(-1);
  if (!lastSpan) return '';
  const known = lastLine?.end === lastSpan.end ? lastLine.sha256 : undefined;
  return encodeSegment(spans, known ?? (await lineHash(fs, eventsPath, lastSpan)));
}

function encodeSegment(spans: readonly LineSpan[], last: string): string {
  const segment = {
    from: spans[0]?.start ?? 0,
    to: spans.at(-1)?.end ?? 0,
    last,
    ids: spans.map((span) => span.id),
    lengths: spans.map((span) => span.end - span.start),
    types: spans.map((span) => span.type ?? null),
    keys: spans.map((span) => span.key ?? null),
  };
  return `${JSON.stringify(segment)}\n`;
}

async function lineHash(fs: StorageFs, eventsPath: string, span: LineSpan): Promise<string> {
  return sha256(await readFileBytes(fs, eventsPath, span.start, span.end));
}

/**
 * The fingerprint `index.jsonl` records for a line.
 * @param bytes - the line with its `\n`
 * @returns SHA-256, hex
 */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
