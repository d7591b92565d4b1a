/** Stable codes of errors raised by `@troupe/plugin-story`. Match on `code`, never on the message. */
export type StoryErrorCode =
  | 'STORY_MANIFEST_INVALID'
  | 'STORY_REVISION_CONFLICT'
  | 'STORY_WORKSPACE_NOT_FOUND'
  | 'STORY_WORKSPACE_EXISTS'
  | 'STORY_WORKSPACE_NOT_DAMAGED'
  | 'STORY_INVALID_ID'
  | 'STORY_INVALID_PATH'
  | 'STORY_DUPLICATE_ID'
  | 'STORY_ITEM_NOT_FOUND'
  | 'STORY_STAGE_MODEL_FAILED'
  | 'STORY_STAGE_OUTPUT_INVALID'
  | 'STORY_STAGE_EMPTY'
  | 'STORY_STAGE_TIMEOUT'
  | 'STORY_DEADLINE_EXCEEDED'
  | 'STORY_EDITOR_STRUCTURE'
  | 'STORY_NO_SECTIONS'
  | 'STORY_WEB_SEARCH_FAILED'
  | 'STORY_RETRIEVAL_UNAVAILABLE';

const STORY_ERROR_MARKER = Symbol.for('@troupe/plugin-story/StoryError');

/** The one error type of this package; `code` is stable, `field` names the bad field when there is one. */
export class StoryError extends Error {
  /** Stable, documented error code. */
  readonly code: StoryErrorCode;
  /** The offending field (e.g. `sections[1].kind`) for validation errors. */
  readonly field: string | undefined;
  readonly [STORY_ERROR_MARKER] = true;

  /**
   * @param code - stable error code
   * @param message - a sentence a player or developer can act on
   * @param options - the cause and the offending field
   */
  constructor(code: StoryErrorCode, message: string, options: { cause?: unknown; field?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StoryError';
    this.code = code;
    this.field = options.field;
  }

  /** True when `value` is a StoryError from any copy of this package. */
  static isInstance(value: unknown): value is StoryError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORY_ERROR_MARKER] === true;
  }
}
