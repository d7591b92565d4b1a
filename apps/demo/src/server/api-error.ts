import { defineErrorClass, formatIssues, KernelError, KernelStorageError } from '@troupe/kernel';
import { ModelError } from '@troupe/model-openai-compatible';
import { AssemblerError } from '@troupe/plugin-actor-assembler';
import { LorebookError } from '@troupe/plugin-lorebook';
import { StoryError } from '@troupe/plugin-story';
import { LibraryError } from '../library/library-error.js';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import * as z from 'zod';

/** Stable codes the web API answers with besides the story and storage codes it passes through. */
export type ApiErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_JSON'
  | 'INVALID_ID'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BODY_TOO_LARGE'
  | 'NOT_FOUND'
  | 'FORBIDDEN_HOST'
  | 'DIO_UNAVAILABLE'
  | 'DIO_INVALID_RESPONSE'
  | 'INTERNAL';

/** The JSON body of every error answer. */
export interface ApiErrorBody {
  readonly code: string;
  readonly message: string;
}

/**
 * An error the API answers with as `{code, message}` and the given HTTP status; the code is an
 * {@link ApiErrorCode} or a passed-through story/storage/DIO code. Built with the kernel's
 * `defineErrorClass`.
 */
export class ApiError extends defineErrorClass<ApiErrorCode | (string & {})>('ApiError') {
  /** HTTP status of the answer. */
  readonly status: ContentfulStatusCode;

  /**
   * @param status - HTTP status
   * @param code - stable error code
   * @param message - a sentence the player can act on
   * @param options - the cause
   */
  constructor(status: ContentfulStatusCode, code: ApiErrorCode | (string & {}), message: string, options: { cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = status;
  }
}

const STORY_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  STORY_REVISION_CONFLICT: 409,
  STORY_WORKSPACE_EXISTS: 409,
  STORY_DUPLICATE_ID: 409,
  STORY_WORKSPACE_NOT_FOUND: 404,
  STORY_ITEM_NOT_FOUND: 404,
  STORY_INVALID_ID: 400,
  STORY_INVALID_PATH: 400,
  STORY_MANIFEST_INVALID: 400,
  STORY_WORKSPACE_NOT_DAMAGED: 400,
};

const STORAGE_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  TREE_INVALID_ID: 400,
  TREE_INVALID_PATH: 400,
  TREE_NOT_FOUND: 404,
  TREE_EXISTS: 409,
  TREE_REVISION_CONFLICT: 409,
  SESSION_INVALID_ID: 400,
  SESSION_EVENT_NOT_FOUND: 404,
  SESSION_EXISTS: 409,
  // A damaged log or workspace is the stored state conflicting with the request, not the server
  // failing: the message names the file (and line) to repair, and export / delete still work.
  SESSION_CORRUPT: 409,
  TREE_CORRUPT: 409,
};

const LIBRARY_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  LIBRARY_NOT_FOUND: 404,
  LIBRARY_REVISION_CONFLICT: 409,
  LIBRARY_READ_ONLY: 409,
  LIBRARY_INVALID: 400,
  SETTINGS_INVALID: 400,
};

// A card or preset file that cannot be imported is the player's file, not the server's fault.
function assemblerStatus(code: string): ContentfulStatusCode | undefined {
  if (code === 'IMPORT_TOO_LARGE') return 413;
  if (code.startsWith('IMPORT_') || code.startsWith('PNG_') || code === 'PRESET_INVALID') return 400;
  return undefined;
}

const KERNEL_STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  KERNEL_TURN_INPUT_INVALID: 400,
  KERNEL_CHAT_CONTROL_INVALID: 400,
  KERNEL_TURN_NOT_FOUND: 404,
  KERNEL_STEP_NOT_FOUND: 404,
};

/**
 * Maps anything thrown by a route to the status and `{code, message}` it answers with. Known
 * errors keep their stable code and message; anything else becomes a 500 `INTERNAL` whose
 * message hides internals (the caller logs the original).
 * @param error - what a route threw
 * @returns the HTTP status and body, and whether it was unexpected
 */
export function toApiError(error: unknown): { status: ContentfulStatusCode; body: ApiErrorBody; unexpected: boolean } {
  if (ApiError.isInstance(error)) return known(error.status, error.code, error.message);
  if (error instanceof z.ZodError) return known(400, 'INVALID_REQUEST', formatIssues(error, { root: 'body' }));
  if (StoryError.isInstance(error)) {
    const status = STORY_STATUS[error.code];
    if (status) return known(status, error.code, error.message);
  }
  if (LibraryError.isInstance(error)) {
    const status = LIBRARY_STATUS[error.code];
    if (status) return known(status, error.code, error.message);
  }
  if (ModelError.isInstance(error) && error.code === 'MODEL_CONFIG_INVALID') return known(400, error.code, error.message);
  if (AssemblerError.isInstance(error)) {
    const status = assemblerStatus(error.code);
    if (status) return known(status, error.code, error.message);
  }
  if (LorebookError.isInstance(error)) return known(error.code === 'LOREBOOK_TOO_LARGE' ? 413 : 400, error.code, error.message);
  if (KernelStorageError.isInstance(error)) {
    const status = STORAGE_STATUS[error.code];
    if (status) return known(status, error.code, error.message);
  }
  if (KernelError.isInstance(error)) {
    const status = KERNEL_STATUS[error.code];
    if (status) return known(status, error.code, error.message);
  }
  return { status: 500, body: { code: 'INTERNAL', message: 'Something unexpected went wrong on the server; see its log.' }, unexpected: true };
}

function known(status: ContentfulStatusCode, code: string, message: string) {
  return { status, body: { code, message }, unexpected: false };
}
