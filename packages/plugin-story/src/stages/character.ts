import { knowledgeHeading, STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { type FittedStagePrompt, fitStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { callJsonStage, type StageEnvironment, stageBudget } from '../pipeline/stage-call.js';

/**
 * What one character worker may read (seed table): its own persona, its own `knowledge.md` and
 * the player input. There is deliberately no field for public history, the conversation, other
 * characters, the outline, foreshadowing or sources.
 */
export interface CharacterWorkerInput {
  readonly character: { readonly id: string; readonly name: string };
  readonly persona: string;
  readonly knowledge: string;
  readonly playerInput: string;
}

/** A character's independent proposal for this turn. */
export const CharacterProposalSchema = z.object({
  intent: z.string(),
  action: z.string().min(1),
  dialogue: z.string(),
});

/** A validated proposal. */
export type CharacterProposal = z.output<typeof CharacterProposalSchema>;

/**
 * Builds the character worker's messages: the system rules and a user message made only from the
 * scoped input, fitted to the stage budget (the persona keeps its start, the knowledge its end;
 * the player input is never cut).
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param budget - the stage budget (default: the defaults with the kernel's estimate)
 * @returns the chat messages (system, user)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the player input alone is over budget
 */
export function characterMessages(input: CharacterWorkerInput, budget: StagePromptBudget = defaultStagePromptBudget()): ChatMessage[] {
  return characterPrompt(input, budget).messages;
}

// The fitted messages with their token count, which the stage call's last check reuses.
function characterPrompt(input: CharacterWorkerInput, budget: StagePromptBudget): FittedStagePrompt {
  return fitStagePrompt(
    budget,
    STORY_STAGES.character,
    `You play ${input.character.name} (${input.character.id}) only. Decide what this character wants, does and says next, using ONLY what this character knows. Output JSON {"intent": string, "action": string, "dialogue": string}.`,
    [
      [STAGE_BLOCKS.persona, input.persona || '(empty)', 'head'],
      [knowledgeHeading(input.character.name), input.knowledge || '(nothing yet)', 'tail'],
      [STAGE_BLOCKS.playerInput, input.playerInput, 'fixed'],
    ],
  );
}

/**
 * Runs one character worker on its own persona, its own knowledge and the player input.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the validated proposal
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_OUTPUT_INVALID; the abort reason when cancelled (never recorded as a failure)
 */
export function runCharacter(env: StageEnvironment, input: CharacterWorkerInput): Promise<CharacterProposal> {
  return callJsonStage(env, { stage: STORY_STAGES.character, item: input.character.id, ...characterPrompt(input, stageBudget(env)) }, CharacterProposalSchema, 'character_proposal');
}
