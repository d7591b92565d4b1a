import { deflateSync } from 'node:zlib';
import { type PngChunk, encodePng, isPng, readPngChunks } from '@troupe/plugin-actor-assembler';

/** An avatar picture as stored in the library (text files only, so base64). */
export interface AvatarImage {
  readonly mime: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';
  readonly base64: string;
}

/**
 * The image type of some bytes from their signature (never from a file name).
 * @param bytes - image bytes
 * @returns the MIME type, or `undefined` for anything that is not a PNG, JPEG, WebP or GIF
 */
export function sniffImage(bytes: Uint8Array): AvatarImage['mime'] | undefined {
  if (isPng(bytes)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'RIFF' && Buffer.from(bytes.subarray(8, 12)).toString('latin1') === 'WEBP') return 'image/webp';
  if (Buffer.from(bytes.subarray(0, 4)).toString('latin1') === 'GIF8') return 'image/gif';
  return undefined;
}

/**
 * A card PNG without its card text chunks (`chara`, `ccv3`): the picture alone, so serving the
 * avatar never hands out a stale copy of the card.
 * @param png - a card PNG
 * @returns the PNG without card chunks
 */
export function stripCardChunks(png: Uint8Array): Uint8Array {
  const keep = (chunk: PngChunk): boolean => {
    if (chunk.type !== 'tEXt') return true;
    const keyword = Buffer.from(chunk.data.subarray(0, Math.max(0, chunk.data.indexOf(0)))).toString('latin1');
    return keyword !== 'chara' && keyword !== 'ccv3';
  };
  return encodePng(readPngChunks(png).filter(keep));
}

/**
 * A plain square PNG in one colour derived from the name, for exporting a card that came without a
 * picture (a V3 PNG export needs an image to carry the card).
 * @param name - the character's name (picks the colour)
 * @param size - width and height in pixels (default 256)
 * @returns PNG bytes
 */
export function placeholderPng(name: string, size = 256): Uint8Array {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  const rgb = [96 + (hash & 0x7f), 96 + ((hash >> 8) & 0x7f), 96 + ((hash >> 16) & 0x7f)];
  const row = Buffer.alloc(1 + size * 3);
  for (let x = 0; x < size; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return encodePng([
    { type: 'IHDR', data: header },
    { type: 'IDAT', data: deflateSync(raw) },
    { type: 'IEND', data: new Uint8Array() },
  ]);
}
