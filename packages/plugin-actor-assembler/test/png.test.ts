import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, encodePng, readPngChunks, readPngTextChunks, setPngTextChunks } from '../src/importers/png.js';
import { codeOf, fixtureBytes, tinyPng } from './helpers.js';

const fixture = fixtureBytes('lia-v3.png');

describe('PNG chunks', () => {
  it('crc32 agrees with node:zlib', () => {
    const bytes = new TextEncoder().encode('tEXtchara\0莉娅');
    expect(crc32(bytes)).toBe(zlibCrc32(bytes) >>> 0);
    expect(crc32(bytes.subarray(0, 4), bytes.subarray(4))).toBe(zlibCrc32(bytes) >>> 0);
  });

  it('reads the committed fixture (written by an independent encoder)', () => {
    const chunks = readPngChunks(fixture);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'tEXt', 'IDAT', 'tEXt', 'IEND']);
    expect([...readPngTextChunks(fixture).keys()]).toEqual(['chara', 'ccv3']);
  });

  it('round-trips tEXt chunks set by setPngTextChunks, replacing same keywords', () => {
    const once = setPngTextChunks(tinyPng(), { chara: 'AAAA', note: 'hello' });
    const twice = setPngTextChunks(once, { chara: 'BBBB' });
    expect(Object.fromEntries(readPngTextChunks(twice))).toEqual({ note: 'hello', chara: 'BBBB' });
    expect(readPngChunks(twice).at(-1)?.type).toBe('IEND');
  });

  it('rejects a bad signature, truncation, a wrong CRC, a lying length, and a missing IHDR', () => {
    const png = tinyPng();
    expect(codeOf(() => readPngChunks(new TextEncoder().encode('{"spec":"chara_card_v2"}')))).toBe('PNG_INVALID');
    expect(codeOf(() => readPngChunks(png.subarray(0, png.length - 6)))).toBe('PNG_INVALID');
    const flipped = png.slice();
    flipped[20] = (flipped[20] ?? 0) ^ 0xff; // inside IHDR data
    expect(codeOf(() => readPngChunks(flipped))).toBe('PNG_CRC_MISMATCH');
    const lying = png.slice();
    new DataView(lying.buffer).setUint32(8, 0x7fffffff);
    expect(codeOf(() => readPngChunks(lying))).toBe('PNG_INVALID');
    const noHeader = encodePng([{ type: 'IEND', data: new Uint8Array() }]);
    expect(codeOf(() => readPngChunks(noHeader))).toBe('PNG_INVALID');
  });

  it('enforces the size caps before reading data', () => {
    const big = tinyPng([{ type: 'tEXt', data: new Uint8Array(2048).fill(65).fill(0, 5, 6) }]);
    expect(codeOf(() => readPngChunks(big, { maxTextChunkBytes: 1024 }))).toBe('IMPORT_TOO_LARGE');
    expect(codeOf(() => readPngChunks(big, { maxFileBytes: 1000 }))).toBe('IMPORT_TOO_LARGE');
    expect(readPngChunks(big)).toHaveLength(4);
  });

  it('rejects a tEXt chunk without a keyword', () => {
    expect(codeOf(() => readPngTextChunks(tinyPng([{ type: 'tEXt', data: Uint8Array.of(0, 65) }])))).toBe('PNG_INVALID');
  });
});
