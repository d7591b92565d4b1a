import { readFile, stat } from 'node:fs/promises';
import { AssemblerError } from '../errors.js';
import { type CharacterCardImport, MAX_CARD_JSON_BYTES, importCharacterCard } from './character-card.js';
import type { PngLimits } from './png.js';

/** Options of {@link importCharacterCardFile}. */
export interface CardFileOptions {
  readonly signal?: AbortSignal;
  readonly limits?: PngLimits;
  /** Use the card's own prompts (default true; see `importCharacterCard`). */
  readonly useCardPrompts?: boolean;
}

/**
 * Reads a `.png` or `.json` character card from disk, checking its size before reading it.
 * @param path - file path
 * @param options - abort signal, PNG size caps, `useCardPrompts`
 * @returns the import (see {@link importCharacterCard})
 * @throws {AssemblerError} IMPORT_TOO_LARGE and every code of {@link importCharacterCard};
 *   the abort reason when `signal` aborts; file system errors (ENOENT, …) as they are
 */
export async function importCharacterCardFile(path: string, options: CardFileOptions = {}): Promise<CharacterCardImport> {
  options.signal?.throwIfAborted();
  const cap = Math.max(options.limits?.maxFileBytes ?? 20 * 1024 * 1024, MAX_CARD_JSON_BYTES);
  const info = await stat(path);
  if (info.size > cap) throw new AssemblerError('IMPORT_TOO_LARGE', `${path} is ${info.size} bytes; the limit is ${cap}`, { details: { size: info.size } });
  const bytes = await readFile(path, options.signal ? { signal: options.signal } : {});
  options.signal?.throwIfAborted();
  return importCharacterCard(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options.limits, options.useCardPrompts === undefined ? {} : { useCardPrompts: options.useCardPrompts });
}
