import { knowledgeHeading, renderPromptBlocks, STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { callJsonStage, type StageEnvironment } from '../pipeline/stage-call.js';

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
 * Builds the character worker's messages: the system rules and a user message made only from the scoped input.
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the chat messages (system, user)
 */
export function characterMessages(input: CharacterWorkerInput): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `You play ${input.character.name} (${input.character.id}) only. Decide what this character wants, does and says next, using ONLY what this character knows. Output JSON {"intent": string, "action": string, "dialogue": string}.`,
    },
    {
      role: 'user',
      content: renderPromptBlocks([
        [STAGE_BLOCKS.persona, input.persona || '(empty)'],
        [knowledgeHeading(input.character.name), input.knowledge || '(nothing yet)'],
        [STAGE_BLOCKS.playerInput, input.playerInput],
      ]),
    },
  ];
}

/**
 * Runs one character worker on its own persona, its own knowledge and the player input.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the validated proposal
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_OUTPUT_INVALID; the abort reason when cancelled (never recorded as a failure)
 */
export function runCharacter(env: StageEnvironment, input: CharacterWorkerInput): Promise<CharacterProposal> {
  return callJsonStage(env, { stage: STORY_STAGES.character, item: input.character.id, messages: characterMessages(input) }, CharacterProposalSchema, 'character_proposal');
}
