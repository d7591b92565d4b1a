import { DEFAULT_TOKEN_BUDGET, estimateTokenizer, type TurnTokenBudget } from '@troupe/kernel';
import { StoryError } from '../errors.js';

/**
 * The share of the actor's prompt the story draft may take. The rest is the preset's fixed
 * prompts, the character, the DIO slot, world info, the input and as much history as fits — the
 * assembler never drops the draft, so a draft that took the whole prompt would fail the turn.
 */
export const DRAFT_PROMPT_SHARE = 0.5;

/** What the draft handed to the actor (`contextKeys.storyDraft`) may take, counted for the actor model. */
export interface DraftBudget {
  /** Most tokens of the draft text. */
  readonly tokens: number;
  /** The actor's prompt budget the share was taken from (for messages). */
  readonly promptTokens: number;
  /**
   * Tokens of a text with the actor model's (calibrated) counter.
   * @param text - any text
   */
  count(text: string): number;
}

/**
 * The draft budget of a turn: {@link DRAFT_PROMPT_SHARE} of the prompt the turn's token budget
 * leaves (`contextKeys.tokenBudget`, which the kernel sets on every turn), counted with its
 * counter; without one, the kernel's default budget and estimate.
 * @param turn - the turn's token budget
 * @returns the budget (never throws)
 */
export function draftBudget(turn: TurnTokenBudget | undefined): DraftBudget {
  const promptTokens = turn?.promptTokens ?? DEFAULT_TOKEN_BUDGET.contextTokens - DEFAULT_TOKEN_BUDGET.responseTokens;
  const count = turn ? (text: string) => turn.countText(text) : (text: string) => estimateTokenizer.count(text);
  return { tokens: Math.floor(promptTokens * DRAFT_PROMPT_SHARE), promptTokens, count };
}

/**
 * Checks a draft against the turn's draft budget.
 * @param text - the draft
 * @param limit - the draft budget
 * @param code - the error code to throw
 * @param what - what wrote the draft, for the message
 * @throws {StoryError} `code` when the draft counts more than `limit.tokens`
 */
export function checkDraftSize(text: string, limit: DraftBudget, code: 'STORY_STAGE_OUTPUT_TOO_LARGE' | 'STORY_DRAFT_TOO_LARGE', what: string): void {
  const tokens = limit.count(text);
  if (tokens > limit.tokens) {
    throw new StoryError(
      code,
      `${what} gave a story draft of ≈${tokens} tokens, over the ${limit.tokens} the actor's prompt leaves it (half of the chat's ${limit.promptTokens}-token prompt budget)`,
    );
  }
}
