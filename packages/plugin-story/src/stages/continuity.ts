import { STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { type FittedStagePrompt, fitStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { callJsonStage, type StageEnvironment, stageBudget } from '../pipeline/stage-call.js';

/**
 * What the continuity worker may read (seed table): the final visible reply, the current outline
 * and foreshadowing, and the participating characters' identities. No internal drafts.
 */
export interface ContinuityInput {
  readonly visibleReply: string;
  readonly outline: string;
  readonly foreshadowing: string;
  readonly participants: readonly { readonly id: string; readonly name: string }[];
}

/** What the continuity worker settles. */
export const ContinuityResultSchema = z.object({
  publicEvents: z.array(z.string().min(1)).max(50),
  observations: z.array(z.object({ characterId: z.string(), facts: z.array(z.string().min(1)).max(50) })).max(50),
  proposals: z.array(z.string().min(1)).max(50),
});

/** A validated continuity result. */
export type ContinuityResult = z.output<typeof ContinuityResultSchema>;

/**
 * Builds the continuity worker's messages: the system rules and a user message made only from the
 * scoped input, fitted to the stage budget (outline and foreshadowing keep their start; the
 * visible reply and the participants are never cut).
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param budget - the stage budget (default: the defaults with the kernel's estimate)
 * @returns the chat messages (system, user)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the reply and participants alone are over budget
 */
export function continuityMessages(input: ContinuityInput, budget: StagePromptBudget = defaultStagePromptBudget()): ChatMessage[] {
  return continuityPrompt(input, budget).messages;
}

// The fitted messages with their token count, which the stage call's last check reuses.
function continuityPrompt(input: ContinuityInput, budget: StagePromptBudget): FittedStagePrompt {
  const participants = input.participants.map((p) => `- ${p.id}: ${p.name}`).join('\n') || '(none)';
  return fitStagePrompt(
    budget,
    STORY_STAGES.continuity,
    'You are the continuity worker. From the reply the player actually saw, list the public events; for each participant only the facts they clearly experienced or could perceive in that reply; and suggestions for the outline or foreshadowing (suggestions only — never rewrite them). Output JSON {"publicEvents": string[], "observations": [{"characterId": string, "facts": string[]}], "proposals": string[]}.',
    [
      [STAGE_BLOCKS.visibleReply, input.visibleReply, 'fixed'],
      [STAGE_BLOCKS.outline, input.outline || '(empty)', 'head'],
      [STAGE_BLOCKS.foreshadowing, input.foreshadowing || '(empty)', 'head'],
      [STAGE_BLOCKS.participants, participants, 'fixed'],
    ],
  );
}

/**
 * Runs the continuity worker on the final visible reply.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the validated result
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_OUTPUT_INVALID; the abort reason when cancelled (never recorded as a failure)
 */
export function runContinuity(env: StageEnvironment, input: ContinuityInput): Promise<ContinuityResult> {
  return callJsonStage(env, { stage: STORY_STAGES.continuity, ...continuityPrompt(input, stageBudget(env)) }, ContinuityResultSchema, 'continuity');
}
