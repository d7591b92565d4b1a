import type { ChatMessage } from '@troupe/kernel';
import { callProseStage, type StageEnvironment } from '../pipeline/stage-call.js';
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
  character: 'Focus on the named character(s), showing only what the plan makes public.',
  history: 'Present timeline, background or records for the reader, using only facts that are already public.',
};

/**
 * Builds a section writer's messages.
 * @param input - the scoped input
 */
export function sectionMessages(input: SectionWriterInput): ChatMessage[] {
  const focus = input.section.focus ? `${input.section.focus.name} (${input.section.focus.id})` : 'all participants';
  const notes = input.plan.sectionNotes.filter((n) => n.sectionId === input.section.id).map((n) => n.note);
  return [
    {
      role: 'system',
      content: `You write the "${input.section.title}" section (${input.section.kind}) of this turn's story text. ${KIND_RULES[input.section.kind]} Focus: ${focus}. Output only the section's text, without a heading.`,
    },
    {
      role: 'user',
      content: `## Section reference\n${input.reference || '(none)'}\n\n## Director's plan\n${input.plan.beats.map((b) => `- ${b}`).join('\n')}\n${notes.map((n) => `Note: ${n}`).join('\n')}\n\n## Player input\n${input.playerInput}`,
    },
  ];
}

/**
 * Runs one section writer.
 * @returns the section's draft text
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED / STORY_STAGE_EMPTY; the abort reason when cancelled
 */
export function runSection(env: StageEnvironment, input: SectionWriterInput): Promise<string> {
  return callProseStage(env, { stage: 'story/section', item: input.section.id, messages: sectionMessages(input) });
}
