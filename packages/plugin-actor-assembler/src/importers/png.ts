import { AssemblerError } from '../errors.js';

/** The 8-byte PNG signature. */
export const PNG_SIGNATURE: Readonly<Uint8Array> = Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10);

/** Size caps for reading PNGs (bytes). */
export interface PngLimits {
  /** Whole file (default 20 MB). */
  readonly maxFileBytes?: number;
  /** One `tEXt` chunk (default 8 MB; a card with a large lorebook fits). */
  readonly maxTextChunkBytes?: number;
  /** Number of chunks (default 100 000). */
  readonly maxChunks?: number;
}

/** One PNG chunk. */
export interface PngChunk {
  /** Four-letter type, e.g. `IHDR`, `tEXt`. */
  readonly type: string;
  readonly data: Uint8Array;
}

const DEFAULT_LIMITS = { maxFileBytes: 20 * 1024 * 1024, maxTextChunkBytes: 8 * 1024 * 1024, maxChunks: 100_000 };

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * CRC-32 as PNG uses it (ISO 3309), over several byte ranges in sequence.
 * @param parts - byte ranges
 * @returns the unsigned CRC
 */
export function crc32(...parts: Uint8Array[]): number {
  let crc = 0xffffffff;
  for (const part of parts) for (const byte of part) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Checks for the PNG signature.
 * @param bytes - file bytes
 * @returns true when the bytes start with the 8-byte PNG signature
 */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && PNG_SIGNATURE.every((byte, index) => bytes[index] === byte);
}

/**
 * Reads and checks every chunk of a PNG: signature, lengths, CRCs, `IHDR` first, `IEND` last.
 * @param bytes - the file
 * @param limits - size caps
 * @returns the chunks up to and including `IEND`
 * @throws {AssemblerError} PNG_INVALID (not a PNG, truncated, bad structure), PNG_CRC_MISMATCH, IMPORT_TOO_LARGE
 */
export function readPngChunks(bytes: Uint8Array, limits: PngLimits = {}): PngChunk[] {
  const caps = { ...DEFAULT_LIMITS, ...limits };
  if (bytes.length > caps.maxFileBytes) throw new AssemblerError('IMPORT_TOO_LARGE', `PNG is ${bytes.length} bytes; the limit is ${caps.maxFileBytes}`, { details: { size: bytes.length } });
  if (!isPng(bytes)) throw new AssemblerError('PNG_INVALID', 'Not a PNG file (bad signature)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let offset = 8;
  while (true) {
    if (offset + 12 > bytes.length) throw new AssemblerError('PNG_INVALID', `PNG is truncated at byte ${offset} (no IEND chunk)`, { details: { offset } });
    const length = view.getUint32(offset);
    const typeBytes = bytes.subarray(offset + 4, offset + 8);
    const type = String.fromCharCode(...typeBytes);
    if (!/^[A-Za-z]{4}$/.test(type)) throw new AssemblerError('PNG_INVALID', `Invalid chunk type at byte ${offset}`, { details: { offset } });
    // Check the declared length against what is left before touching the data.
    if (length > bytes.length - offset - 12) throw new AssemblerError('PNG_INVALID', `Chunk ${type} at byte ${offset} declares ${length} bytes past the end of the file`, { details: { offset, type } });
    if (type === 'tEXt' && length > caps.maxTextChunkBytes) {
      throw new AssemblerError('IMPORT_TOO_LARGE', `tEXt chunk of ${length} bytes exceeds the limit of ${caps.maxTextChunkBytes}`, { details: { size: length, type } });
    }
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    const expected = view.getUint32(offset + 8 + length);
    if (crc32(typeBytes, data) !== expected) throw new AssemblerError('PNG_CRC_MISMATCH', `Chunk ${type} at byte ${offset} fails its CRC check`, { details: { offset, type } });
    if (chunks.length === 0 && type !== 'IHDR') throw new AssemblerError('PNG_INVALID', `First chunk is ${type}, expected IHDR`);
    chunks.push({ type, data });
    if (chunks.length > caps.maxChunks) throw new AssemblerError('IMPORT_TOO_LARGE', `PNG has more than ${caps.maxChunks} chunks`);
    offset += 12 + length;
    if (type === 'IEND') return chunks;
  }
}

/**
 * Reads the `tEXt` chunks of a PNG (keyword → Latin-1 text; the first chunk per keyword wins).
 * @param bytes - the file
 * @param limits - size caps
 * @returns the text chunks
 * @throws {AssemblerError} as {@link readPngChunks}; PNG_INVALID for a tEXt chunk without a keyword
 */
export function readPngTextChunks(bytes: Uint8Array, limits: PngLimits = {}): Map<string, string> {
  const texts = new Map<string, string>();
  for (const chunk of readPngChunks(bytes, limits)) {
    if (chunk.type !== 'tEXt') continue;
    const separator = chunk.data.indexOf(0);
    if (separator < 1 || separator > 79) throw new AssemblerError('PNG_INVALID', 'tEXt chunk without a valid keyword');
    const keyword = Buffer.from(chunk.data.subarray(0, separator)).toString('latin1');
    if (!texts.has(keyword)) texts.set(keyword, Buffer.from(chunk.data.subarray(separator + 1)).toString('latin1'));
  }
  return texts;
}

/**
 * Encodes chunks into a PNG file (signature, lengths and CRCs computed).
 * @param chunks - chunks in order, `IHDR` first and `IEND` last
 * @returns the file bytes
 */
export function encodePng(chunks: readonly PngChunk[]): Uint8Array {
  const size = 8 + chunks.reduce((sum, chunk) => sum + 12 + chunk.data.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(PNG_SIGNATURE, 0);
  let offset = 8;
  for (const chunk of chunks) {
    const typeBytes = Uint8Array.from(chunk.type, (char) => char.charCodeAt(0));
    view.setUint32(offset, chunk.data.length);
    out.set(typeBytes, offset + 4);
    out.set(chunk.data, offset + 8);
    view.setUint32(offset + 8 + chunk.data.length, crc32(typeBytes, chunk.data));
    offset += 12 + chunk.data.length;
  }
  return out;
}

/**
 * Returns a copy of a PNG with `tEXt` chunks set: chunks with the same keywords are removed and the
 * new ones go right before `IEND`.
 * @param png - the image
 * @param texts - keyword → Latin-1 text (card chunks are base64, so ASCII)
 * @param limits - size caps for reading the image
 * @returns the new file bytes
 * @throws {AssemblerError} as {@link readPngChunks}
 */
export function setPngTextChunks(png: Uint8Array, texts: Readonly<Record<string, string>>, limits: PngLimits = {}): Uint8Array {
  const keywords = new Set(Object.keys(texts));
  const kept = readPngChunks(png, limits).filter((chunk) => {
    if (chunk.type !== 'tEXt') return true;
    const keyword = Buffer.from(chunk.data.subarray(0, Math.max(0, chunk.data.indexOf(0)))).toString('latin1');
    return !keywords.has(keyword);
  });
  const added = Object.entries(texts).map(([keyword, text]): PngChunk => ({ type: 'tEXt', data: Buffer.from(`${keyword}\0${text}`, 'latin1') }));
  return encodePng([...kept.slice(0, -1), ...added, kept[kept.length - 1]!]);
}
