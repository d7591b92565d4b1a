import type { ChatMessage } from '@troupe/kernel';
import { renderPromptBlocks } from '@troupe/kernel/stage-prompt';
import { StoryError } from '../errors.js';
import { clipToTokens } from './clip-text.js';
import type { StagePromptBudget } from './stage-budget.js';

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
  const messages = (bodies: readonly string[]): ChatMessage[] => [
    { role: 'system', content: system },
    { role: 'user', content: renderPromptBlocks(blocks.map(([heading], i) => [heading, bodies[i] ?? ''])) },
  ];
  const bodies = blocks.map(([, body]) => body);
  let fitted = messages(bodies);
  if (budget.countMessages(fitted) <= budget.promptTokens) return fitted;
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
    const over = budget.countMessages(fitted) - budget.promptTokens;
    if (over <= 0) return fitted;
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
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the request counts more than `budget.promptTokens`
 */
export function checkStagePrompt(budget: StagePromptBudget, stage: string, messages: readonly ChatMessage[]): void {
  const tokens = budget.countMessages(messages);
  if (tokens > budget.promptTokens) throw tooLarge(stage, budget, tokens);
}

function tooLarge(stage: string, budget: StagePromptBudget, tokens: number): StoryError {
  return new StoryError(
    'STORY_STAGE_PROMPT_TOO_LARGE',
    `${stage}'s prompt needs ${tokens} tokens (${budget.tokenizer}) even with every shrinkable block cut, over its budget of ${budget.promptTokens} (stagePrompt.contextTokens − responseTokens)`,
  );
}

// Equal shares of `total`, where a part smaller than its share keeps its size and frees the rest.
function waterFill(sizes: readonly number[], total: number): number[] {
  const shares = sizes.map(() => 0);
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]!);
  let left = total;
  order.forEach((i, n) => {
    const share = Math.floor(left / (order.length - n));
    shares[i] = Math.min(sizes[i]!, share);
    left -= shares[i]!;
  });
  return shares;
}
