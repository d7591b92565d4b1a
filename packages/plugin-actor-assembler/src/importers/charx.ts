import { inflateRawSync } from 'node:zlib';
import { AssemblerError } from '../errors.js';

// A CHARX file (RisuAI, adopted by the V3 spec) is a ZIP archive holding `card.json` and the
// card's assets. Only what a card import needs is read: the central directory, `card.json` and
// the main icon, each inflated with an output cap so a zip bomb cannot exhaust memory.

/** Size caps for reading a CHARX archive (bytes). */
export interface CharxLimits {
  /** Largest `card.json` after inflating (default 8 MB). */
  readonly maxCardBytes?: number;
  /** Largest icon after inflating (default 16 MB). */
  readonly maxIconBytes?: number;
}

/** What {@link readCharx} returns. */
export interface CharxContents {
  /** The text of `card.json`. */
  readonly cardJson: string;
  /** Reads an asset named by an `embeded://` URI (the V3 spelling), or `undefined` when absent. */
  readAsset(uri: string): Uint8Array | undefined;
}

interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;

/**
 * Whether bytes start like a ZIP archive (`PK\x03\x04`), the container of a CHARX card.
 * @param bytes - file bytes
 * @returns true for a ZIP
 */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function fail(message: string): never {
  throw new AssemblerError('IMPORT_CHARX_INVALID', `CHARX archive: ${message}`);
}

const ZIP64_MARK = 0xffffffff;

// ZIP64 (written by many zip tools even for small files): a 32-bit field of all ones means the
// real value is in the 0x0001 extra field, in the order size, compressed size, offset.
function withZip64Sizes(view: DataView, entry: ZipEntry, extraStart: number, extraLength: number): ZipEntry {
  if (entry.size !== ZIP64_MARK && entry.compressedSize !== ZIP64_MARK && entry.localOffset !== ZIP64_MARK) return entry;
  for (let at = extraStart; at + 4 <= extraStart + extraLength; ) {
    const id = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = (): number => {
        if (field + 8 > at + 4 + length) fail(`ZIP64 field of "${entry.name}" is short`);
        const value = Number(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      const size = entry.size === ZIP64_MARK ? next() : entry.size;
      const compressedSize = entry.compressedSize === ZIP64_MARK ? next() : entry.compressedSize;
      const localOffset = entry.localOffset === ZIP64_MARK ? next() : entry.localOffset;
      return { ...entry, size, compressedSize, localOffset };
    }
    at += 4 + length;
  }
  return fail(`"${entry.name}" has ZIP64 sizes but no ZIP64 field`);
}

function centralDirectory(view: DataView): ZipEntry[] {
  // The end record sits in the last 22 bytes plus a comment of at most 64 KiB.
  const lowest = Math.max(0, view.byteLength - 22 - 0xffff);
  let end = -1;
  for (let at = view.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) === END_OF_CENTRAL) {
      end = at;
      break;
    }
  }
  if (end < 0) fail('no end-of-central-directory record (truncated or not a ZIP)');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL_HEADER) fail(`central directory entry ${index} is damaged`);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength + extraLength > view.byteLength) fail(`central directory entry ${index} is truncated`);
    const nameBytes = new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength);
    const entry = {
      name: Buffer.from(nameBytes).toString('utf8'),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    entries.push(withZip64Sizes(view, entry, at + 46 + nameLength, extraLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function entryBytes(bytes: Uint8Array, view: DataView, entry: ZipEntry, cap: number): Uint8Array {
  if (entry.size > cap) throw new AssemblerError('IMPORT_TOO_LARGE', `CHARX entry "${entry.name}" is ${entry.size} bytes; the limit is ${cap}`, { details: { size: entry.size } });
  const at = entry.localOffset;
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL_HEADER) fail(`local header of "${entry.name}" is damaged`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > bytes.length) fail(`"${entry.name}" is truncated`);
  const stored = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return stored;
  if (entry.method !== 8) fail(`"${entry.name}" uses compression method ${entry.method}; only stored and deflate are read`);
  try {
    return inflateRawSync(stored, { maxOutputLength: cap });
  } catch (cause) {
    throw new AssemblerError('IMPORT_CHARX_INVALID', `CHARX archive: "${entry.name}" does not inflate (${(cause as Error).message})`, { cause });
  }
}

/**
 * Reads a CHARX archive's `card.json` (and gives access to its assets).
 * @param bytes - the archive
 * @param limits - inflate caps
 * @returns the card text and an asset reader
 * @throws {AssemblerError} IMPORT_CHARX_INVALID (damaged archive, no `card.json`), IMPORT_TOO_LARGE
 */
export function readCharx(bytes: Uint8Array, limits: CharxLimits = {}): CharxContents {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(view);
  const card = entries.find((entry) => entry.name === 'card.json');
  if (card === undefined) fail('no card.json at the top level');
  const cardJson = Buffer.from(entryBytes(bytes, view, card, limits.maxCardBytes ?? 8 * 1024 * 1024)).toString('utf8');
  return {
    cardJson,
    readAsset(uri) {
      const name = uri.replace(/^embed(d)?ed:\/\//, '');
      const entry = entries.find((candidate) => candidate.name === name);
      return entry === undefined ? undefined : entryBytes(bytes, view, entry, limits.maxIconBytes ?? 16 * 1024 * 1024);
    },
  };
}
