import { formatIssues } from '@troupe/kernel';
import { SESSION_ID_PATTERN, TREE_ID_PATTERN, validateSessionId, validateTreeId } from '@troupe/kernel/storage';
import { readCappedText } from '@troupe/kernel/util';
import { STORY_ITEM_ID_PATTERN } from '@troupe/plugin-story';
import type { Context } from 'hono';
import * as z from 'zod';
import { ApiError } from './api-error.js';

/** Largest JSON body the API reads (a source document can be long). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

const ID_RULE = 'use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit (not a device name such as "con")';

// The storage layer also refuses Windows device names (a folder called "con" cannot exist there);
// checking the same rule here answers 400 INVALID_ID before any route touches storage.
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const passes = (check: (id: string) => void) => (id: string) => {
  try {
    check(id);
    return true;
  } catch {
    return false;
  }
};

/** A player's line (a new turn's text, or an edit of one): trimmed, not blank, at most 8 000 characters. */
export const PlayerLineSchema = z.string().trim().min(1, 'say something').max(8_000);
/** A reply as the player edits it: at most the kernel's default reply length, and not blank (delete the message instead). */
export const EditedReplySchema = z
  .string()
  .max(200_000)
  .refine((reply) => reply.trim() !== '', 'a reply cannot be empty: delete the message instead');

/** A story workspace id (the kernel's tree id rules). */
// `abort`: an id the pattern refuses is not checked again (one message, not the same one twice).
export const StoryIdSchema = z
  .string()
  .regex(TREE_ID_PATTERN, { message: `Invalid story id: ${ID_RULE}`, abort: true })
  .refine(passes(validateTreeId), `Invalid story id: ${ID_RULE}`);
/** A session id (the kernel's session id rules). */
export const SessionIdSchema = z
  .string()
  .regex(SESSION_ID_PATTERN, { message: `Invalid session id: ${ID_RULE}`, abort: true })
  .refine(passes(validateSessionId), `Invalid session id: ${ID_RULE}`);
/** A turn id (what the kernel generates, or an app's own: letters, digits and `_.:-`). */
export const TurnIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'turnId: 1–128 of letters, digits, "_", ".", ":" and "-"');
/** A character, section or source id inside a workspace (it names a folder or file). */
export const ItemIdSchema = z
  .string()
  .regex(STORY_ITEM_ID_PATTERN, `Invalid item id: ${ID_RULE}`)
  .refine((id) => !WINDOWS_DEVICE_NAME.test(id), `Invalid item id: ${ID_RULE}`);
/** A DIO requirement id (the service's id alphabet). */
export const RequirementIdSchema = z.string().regex(/^[A-Za-z0-9_.:@-]{1,200}$/, 'Invalid requirement id');
/** The revision a save is based on. */
export const RevisionSchema = z.number().int().min(1);

/**
 * Checks one path parameter; a malformed id is a 400 `INVALID_ID`.
 * @param c - the request context
 * @param name - the parameter
 * @param schema - its schema
 * @returns the valid id
 * @throws {ApiError} INVALID_ID (400)
 */
export function param(c: Context, name: string, schema: z.ZodType<string>): string {
  const parsed = schema.safeParse(c.req.param(name));
  if (!parsed.success) throw new ApiError(400, 'INVALID_ID', `${name}: ${formatIssues(parsed.error, { root: 'id' })}`);
  return parsed.data;
}

/**
 * The `baseRevision` query parameter of a DELETE.
 * @param c - the request context
 * @returns the revision the player deleted from
 * @throws {ApiError} INVALID_REQUEST (400) when missing or not a positive integer
 */
export function baseRevisionQuery(c: Context): number {
  const raw = c.req.query('baseRevision');
  const value = raw === undefined || !/^\d{1,15}$/.test(raw) ? Number.NaN : Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ApiError(400, 'INVALID_REQUEST', 'baseRevision: give the revision you are deleting from as ?baseRevision=N');
  }
  return value;
}

/**
 * Reads and validates a JSON body. Requiring `application/json` also makes cross-site form
 * posts impossible: a browser must preflight such a request, and this server answers no CORS.
 * @param c - the request context
 * @param schema - the body schema
 * @returns the parsed body
 * @throws {ApiError} UNSUPPORTED_MEDIA_TYPE (415), BODY_TOO_LARGE (413), INVALID_JSON / INVALID_REQUEST (400)
 */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send a JSON body (content-type: application/json)');
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await readLimited(c.req.raw);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', 'The body is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(400, 'INVALID_REQUEST', formatIssues(parsed.error, { root: 'body' }));
  return parsed.data;
}

// Counts bytes as they arrive so a body without (or with a lying) content-length is still capped.
async function readLimited(request: Request): Promise<string> {
  const text = await readCappedText(request.body, MAX_BODY_BYTES);
  if (text === undefined) throw tooLarge();
  return text;
}

function tooLarge(): ApiError {
  return new ApiError(413, 'BODY_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`);
}
