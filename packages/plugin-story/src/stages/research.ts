import { STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { type FittedStagePrompt, fitStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { callJsonStage, type StageEnvironment, stageBudget } from '../pipeline/stage-call.js';
import type { Snippet } from '../retrieval/snippet.js';

/**
 * What the research worker may read (seed table): public history, recent conversation, relevant
 * local snippets, web results and the player input. No character-private files, no drafts.
 */
export interface ResearchInput {
  readonly publicHistory: string;
  readonly recentConversation: readonly ChatMessage[];
  readonly snippets: readonly Snippet[];
  readonly playerInput: string;
}

/** The research brief: public facts and a continuity note. */
export const ResearchBriefSchema = z.object({
  facts: z.array(z.string().min(1)).max(20),
  continuity: z.string(),
});

/** A research brief; `fromSnippets` marks the fallback built from snippets when research failed. */
export type ResearchBrief = z.output<typeof ResearchBriefSchema> & { readonly fromSnippets?: boolean };

/**
 * Builds the research worker's messages: the system rules and a user message made only from the
 * scoped input, fitted to the stage budget (history and recent conversation keep their end, the
 * ranked snippets their start; the player input is never cut).
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param budget - the stage budget (default: the defaults with the kernel's estimate)
 * @returns the chat messages (system, user)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the player input alone is over budget
 */
export function researchMessages(input: ResearchInput, budget: StagePromptBudget = defaultStagePromptBudget()): ChatMessage[] {
  return researchPrompt(input, budget).messages;
}

// The fitted messages with their token count, which the stage call's last check reuses.
function researchPrompt(input: ResearchInput, budget: StagePromptBudget): FittedStagePrompt {
  const snippets = input.snippets.map((s, i) => `[${i + 1}] (${s.origin}: ${s.ref}) ${s.text}`).join('\n') || '(none)';
  const recent = input.recentConversation.map((m) => `${m.role}: ${m.content}`).join('\n') || '(none)';
  return fitStagePrompt(
    budget,
    STORY_STAGES.research,
    'You are the research worker of a story pipeline. From PUBLIC material only, list the facts relevant to the player input and a short continuity brief. Output JSON {"facts": string[], "continuity": string}.',
    [
      [STAGE_BLOCKS.publicHistory, input.publicHistory || '(empty)', 'tail'],
      [STAGE_BLOCKS.recentConversation, recent, 'tail'],
      [STAGE_BLOCKS.referenceSnippets, snippets, 'head'],
      [STAGE_BLOCKS.playerInput, input.playerInput, 'fixed'],
    ],
  );
}

/**
 * Runs the research worker on public material only.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the validated brief
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_OUTPUT_INVALID; the abort reason when cancelled (never recorded as a failure)
 */
export function runResearch(env: StageEnvironment, input: ResearchInput): Promise<ResearchBrief> {
  return callJsonStage(env, { stage: STORY_STAGES.research, ...researchPrompt(input, stageBudget(env)) }, ResearchBriefSchema, 'research_brief');
}

/**
 * The degraded brief when research fails: the local and web snippets themselves, bounded.
 * @param snippets - retrieved snippets (already capped)
 * @returns a brief marked `fromSnippets: true` (never throws)
 */
export function briefFromSnippets(snippets: readonly Snippet[]): ResearchBrief {
  return { facts: snippets.slice(0, 20).map((s) => `${s.title}: ${s.text}`), continuity: '', fromSnippets: true };
}
