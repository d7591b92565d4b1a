import { LorebookError } from '../errors.js';

/** Largest world-info JSON accepted (characters). */
export const MAX_LOREBOOK_JSON_CHARS = 16 * 1024 * 1024;

/**
 * Parses JSON text (a leading BOM is allowed) within {@link MAX_LOREBOOK_JSON_CHARS}.
 * @param text - the file's text
 * @returns the parsed value
 * @throws {LorebookError} LOREBOOK_TOO_LARGE, LOREBOOK_JSON_INVALID
 */
export function parseLorebookJson(text: string): unknown {
  if (text.length > MAX_LOREBOOK_JSON_CHARS) throw new LorebookError('LOREBOOK_TOO_LARGE', `World-info JSON is ${text.length} characters; the limit is ${MAX_LOREBOOK_JSON_CHARS}`);
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (cause) {
    throw new LorebookError('LOREBOOK_JSON_INVALID', `World info is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}
