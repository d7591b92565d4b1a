import type { ChatMessage } from '@troupe/kernel';
import { renderPromptBlocks } from '@troupe/kernel/stage-prompt';
import { StoryError } from '../errors.js';
import { clipToTokens } from './clip-text.js';
import type { StagePromptBudget } from './stage-budget.js';
import { waterFill } from './water-fill.js';

/**
 * How a block gives way when a stage prompt is over budget: `fixed` never (the player input, the
 * section definitions, the visible reply), `head` keeps its start (persona, outline, ranked
 * snippets, the brief), `tail` keeps its end (history, recent conversation, knowledge).
 */
export type BlockFit = 'fixed' | 'head' | 'tail';

/** One `## heading` block of a stage's user message and how it may shrink. */
export type StageBlock = readonly [heading: string, body: string, fit: BlockFit];

// Room kept for counting drift between the parts and the whole (a tokenizer is not additive).
const SLACK_TOKENS = 8;
const FIT_ATTEMPTS = 4;

/** A stage's fitted messages and at most how many tokens they take (their count, or a bound within budget). */
export interface FittedStagePrompt {
  readonly messages: ChatMessage[];
  /** At most this many tokens under the budget that fitted them (≤ its `promptTokens`). */
  readonly tokens: number;
}

/**
 * A stage's messages (system rules, then one user message of `## ` blocks) fitted to the
 * budget: when the whole request is over `budget.promptTokens`, the shrinkable blocks share
 * what the system message and the fixed blocks leave — a block smaller than its share keeps all
 * of it, the larger ones are clipped to equal shares (water-filling), so a small block is never
 * cut to make room for a large one.
 * @param budget - the stage budget
 * @param stage - the stage name, for the error
 * @param system - the system message
 * @param blocks - the user message's blocks in order
 * @returns the messages, counted at most `budget.promptTokens`
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the fixed parts alone do not fit
 */
export function fitStageMessages(budget: StagePromptBudget, stage: string, system: string, blocks: readonly StageBlock[]): ChatMessage[] {
  return fitStagePrompt(budget, stage, system, blocks).messages;
}

/**
 * {@link fitStageMessages} with the fitted prompt's token count (or a bound of it within
 * budget), which the stage call hands to its last check instead of counting the prompt again.
 * @param budget - the stage budget
 * @param stage - the stage name, for the error
 * @param system - the system message
 * @param blocks - the user message's blocks in order
 * @returns the messages and at most how many tokens they take
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the fixed parts alone do not fit
 */
export function fitStagePrompt(budget: StagePromptBudget, stage: string, system: string, blocks: readonly StageBlock[]): FittedStagePrompt {
  // Nearly every prompt fits as it is: rendered straight from the blocks, and when the
  // tokenizer bounds tokens per character, a short prompt is not even counted.
  let fitted: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: renderPromptBlocks(blocks) },
  ];
  const tokens = atMost(budget, fitted);
  if (tokens <= budget.promptTokens) return { messages: fitted, tokens };
  const messages = (bodies: readonly string[]): ChatMessage[] => [
    { role: 'system', content: system },
    { role: 'user', content: renderPromptBlocks(blocks.map(([heading], i) => [heading, bodies[i] ?? ''])) },
  ];
  const bodies = blocks.map(([, body]) => body);
  const flexible = blocks.flatMap(([, , fit], i) => (fit === 'fixed' ? [] : [i]));
  const skeleton = budget.countMessages(messages(bodies.map((body, i) => (blocks[i]![2] === 'fixed' ? body : ''))));
  let available = budget.promptTokens - skeleton - SLACK_TOKENS;
  for (let attempt = 0; attempt < FIT_ATTEMPTS && available >= 0; attempt++) {
    const sizes = flexible.map((i) => budget.count(bodies[i]!));
    const shares = waterFill(sizes, available);
    const shrunk = [...bodies];
    flexible.forEach((i, n) => {
      if (sizes[n]! > shares[n]!) shrunk[i] = clipToTokens(bodies[i]!, shares[n]!, budget.count, blocks[i]![2] as 'head' | 'tail');
    });
    fitted = messages(shrunk);
    const counted = budget.countMessages(fitted);
    const over = counted - budget.promptTokens;
    if (over <= 0) return { messages: fitted, tokens: counted };
    available -= over + SLACK_TOKENS;
  }
  throw tooLarge(stage, budget, skeleton);
}

/**
 * Checks a stage request against its budget (the last guard before the model call; the editor's
 * drafts are checked only here).
 * @param budget - the stage budget
 * @param stage - the stage name, for the error
 * @param messages - the request's messages
 * @param tokens - their count (or a bound) when the builder already has it (a fitted prompt)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the request counts more than `budget.promptTokens`
 */
export function checkStagePrompt(budget: StagePromptBudget, stage: string, messages: readonly ChatMessage[], tokens?: number): void {
  if (tokens !== undefined && tokens <= budget.promptTokens) return;
  const counted = atMost(budget, messages);
  if (counted > budget.promptTokens) throw tooLarge(stage, budget, counted);
}

// The messages' count, or a cheaper bound of it when that already fits.
function atMost(budget: StagePromptBudget, messages: readonly ChatMessage[]): number {
  return budget.countMessagesAtMost ? budget.countMessagesAtMost(messages) : budget.countMessages(messages);
}

function tooLarge(stage: string, budget: StagePromptBudget, tokens: number): StoryError {
  return new StoryError(
    'STORY_STAGE_PROMPT_TOO_LARGE',
    `${stage}'s prompt needs ${tokens} tokens (${budget.tokenizer}) even with every shrinkable block cut, over its budget of ${budget.promptTokens} (stagePrompt.contextTokens − responseTokens)`,
  );
}
