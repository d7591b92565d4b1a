import { defineErrorClass } from '@troupe/kernel';

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
  | 'STORY_STAGE_PROMPT_TOO_LARGE'
  | 'STORY_STAGE_OUTPUT_TOO_LARGE'
  | 'STORY_DRAFT_TOO_LARGE'
  | 'STORY_DEADLINE_EXCEEDED'
  | 'STORY_EDITOR_STRUCTURE'
  | 'STORY_NO_SECTIONS'
  | 'STORY_WEB_SEARCH_FAILED'
  | 'STORY_RETRIEVAL_UNAVAILABLE';

/**
 * The one error type of this package; `code` is stable, `field` names the bad field when there is
 * one. `StoryError.isInstance(error)` works across package copies.
 */
export class StoryError extends defineErrorClass<StoryErrorCode, { field: string }>('StoryError') {}
