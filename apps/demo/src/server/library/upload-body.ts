import type { Context } from 'hono';
import { readCappedBytes } from '@troupe/kernel/util';
import { ApiError } from '../api-error.js';

/**
 * Reads an uploaded file sent as the raw request body. The content type must be
 * `application/octet-stream` (or `application/json` for a JSON file): neither is a type a web
 * page on another origin may post without a CORS preflight, which this server never grants.
 * @param c - the request context
 * @param maxBytes - the largest file accepted
 * @returns the bytes
 * @throws {ApiError} UNSUPPORTED_MEDIA_TYPE (415), BODY_TOO_LARGE (413)
 */
export async function uploadBody(c: Context, maxBytes: number): Promise<Uint8Array> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(octet-stream|json)\b/i.test(type)) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the file as the body with content-type application/octet-stream');
  }
  const tooLarge = () => new ApiError(413, 'BODY_TOO_LARGE', `The file is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
  if (Number(c.req.header('content-length') ?? 0) > maxBytes) throw tooLarge();
  // Counted as it arrives, so a body without (or with a lying) content-length is capped too.
  const bytes = await readCappedBytes(c.req.raw.body, maxBytes);
  if (bytes === undefined) throw tooLarge();
  return bytes;
}

/**
 * The `?fileName=` of an upload (kept for the record; never used as a path).
 * @param c - the request context
 * @returns the name, at most 256 characters, or undefined
 */
export function uploadFileName(c: Context): string | undefined {
  const name = c.req.query('fileName');
  return name === undefined || name === '' ? undefined : name.slice(0, 256);
}
