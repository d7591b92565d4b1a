import { STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import { type FittedStagePrompt, fitStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { callProseStage, type StageEnvironment, stageBudget } from '../pipeline/stage-call.js';
import type { DirectorPlan, SectionDefinition } from './director.js';

/**
 * What one section writer may read (seed table): its own section's reference, the director's plan
 * and the player input. No other section's draft and no workspace file contents.
 */
export interface SectionWriterInput {
  readonly section: SectionDefinition;
  readonly reference: string;
  readonly plan: DirectorPlan;
  readonly playerInput: string;
}

const KIND_RULES: Record<SectionDefinition['kind'], string> = {
  prose: 'Write narration, setting, action and dialogue.',
  character: "Focus on the named character(s). Even when focused on one character, show only what the director's plan makes public — never anything else that character privately knows.",
  history: 'Present timeline, background or records for the reader, using only facts that are already public.',
};

/**
 * Builds the section writer's messages: the system rules and a user message made only from the
 * scoped input, fitted to the stage budget (reference and plan keep their start; the player
 * input is never cut).
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param budget - the stage budget (default: the defaults with the kernel's estimate)
 * @returns the chat messages (system, user)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the player input alone is over budget
 */
export function sectionMessages(input: SectionWriterInput, budget: StagePromptBudget = defaultStagePromptBudget()): ChatMessage[] {
  return sectionPrompt(input, budget).messages;
}

// The fitted messages with their token count, which the stage call's last check reuses.
function sectionPrompt(input: SectionWriterInput, budget: StagePromptBudget): FittedStagePrompt {
  const focus = input.section.focus ? `${input.section.focus.name} (${input.section.focus.id})` : 'all participants';
  const notes = input.plan.sectionNotes.filter((n) => n.sectionId === input.section.id).map((n) => n.note);
  return fitStagePrompt(
    budget,
    STORY_STAGES.section,
    `You write the "${input.section.title}" section (${input.section.kind}) of this turn's story text. ${KIND_RULES[input.section.kind]} Focus: ${focus}. Output only the section's text, without a heading.`,
    [
      [STAGE_BLOCKS.sectionReference, input.reference || '(none)', 'head'],
      [STAGE_BLOCKS.directorsPlan, `${input.plan.beats.map((b) => `- ${b}`).join('\n')}\n${notes.map((n) => `Note: ${n}`).join('\n')}`, 'head'],
      [STAGE_BLOCKS.playerInput, input.playerInput, 'fixed'],
    ],
  );
}

/**
 * Runs one section writer.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the section's draft text (no heading)
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_EMPTY; the abort reason when cancelled (never recorded as a failure)
 */
export function runSection(env: StageEnvironment, input: SectionWriterInput): Promise<string> {
  return callProseStage(env, { stage: STORY_STAGES.section, item: input.section.id, ...sectionPrompt(input, stageBudget(env)) });
}
