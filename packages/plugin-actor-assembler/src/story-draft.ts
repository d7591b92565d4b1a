import { findMacros, isGetvar } from './macros.js';
import type { PromptEntry } from './preset.js';

/** The template variable a preset reads to place the story draft itself. */
export const STORY_DRAFT_VARIABLE = 'storyDraft';

/**
 * The instruction sent with the story draft when the preset has no `{{getvar::storyDraft}}`:
 * the actor delivers the draft and may only adapt its voice and keep its existing format.
 */
export const DEFAULT_STORY_DRAFT_INSTRUCTION =
  'The story for this turn has already been written and reviewed (below). Deliver it as your reply. ' +
  'You may only adapt the voice and keep its existing format: do not add, remove, reorder or change ' +
  'events, facts, decisions or spoken lines.';

/** Where the story draft went in one assembly. */
export type StoryDraftPlacement = 'variable' | 'beforeInput' | 'none';

/**
 * True when a prompt reads the story draft through `{{getvar::storyDraft}}`.
 * @param prompt - a prompt
 * @returns whether the prompt is a story-draft slot
 */
export function readsStoryDraft(prompt: PromptEntry): boolean {
  if (prompt.marker !== undefined || !prompt.content.includes('storyDraft')) return false;
  return findMacros(prompt.content).some((match) => isGetvar(match, STORY_DRAFT_VARIABLE));
}

/**
 * The system message placed right before the current input when the preset has no story slot.
 * @param text - the draft's Markdown
 * @param instruction - the instruction line (default {@link DEFAULT_STORY_DRAFT_INSTRUCTION})
 * @returns the message content
 */
export function storyDraftMessage(text: string, instruction: string = DEFAULT_STORY_DRAFT_INSTRUCTION): string {
  return `${instruction}\n\n<story_draft>\n${text}\n</story_draft>`;
}
