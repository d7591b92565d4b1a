import { STAGE_BLOCKS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import * as z from 'zod';
import { type FittedStagePrompt, fitStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { callJsonStage, type StageEnvironment, stageBudget } from '../pipeline/stage-call.js';
import type { CharacterProposal } from './character.js';
import type { ResearchBrief } from './research.js';

/** A section as the director and section writers see its definition (no file contents). */
export interface SectionDefinition {
  readonly id: string;
  readonly title: string;
  readonly kind: 'prose' | 'character' | 'history';
  /** The focused character's name, or `null` for all participants. */
  readonly focus: { readonly id: string; readonly name: string } | null;
}

/**
 * What the director may read (seed table): outline, foreshadowing, public history, the research
 * brief, each character's independent proposal, the section definitions and the player input.
 * No field for character-private files.
 */
export interface DirectorInput {
  readonly outline: string;
  readonly foreshadowing: string;
  readonly publicHistory: string;
  readonly research: ResearchBrief;
  readonly proposals: readonly { readonly characterId: string; readonly name: string; readonly proposal: CharacterProposal }[];
  readonly sections: readonly SectionDefinition[];
  readonly playerInput: string;
}

/** The director's plan for this turn. */
export const DirectorPlanSchema = z.object({
  beats: z.array(z.string().min(1)).min(1).max(20),
  sectionNotes: z.array(z.object({ sectionId: z.string(), note: z.string() })),
});

/** A plan; `fallback` marks the bounded plan built from the inputs when the director failed. */
export type DirectorPlan = z.output<typeof DirectorPlanSchema> & { readonly fallback?: boolean };

/** Caps of the fallback plan, so a failed director never hands an unbounded prompt onwards. */
export const FALLBACK_PLAN_LIMITS = Object.freeze({ maxBeats: 12, maxBeatChars: 300 });

/**
 * Builds the director's messages: the system rules and a user message made only from the scoped
 * input, fitted to the stage budget (history keeps its end, the other material its start; the
 * section definitions and the player input are never cut).
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param budget - the stage budget (default: the defaults with the kernel's estimate)
 * @returns the chat messages (system, user)
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE when the fixed blocks alone are over budget
 */
export function directorMessages(input: DirectorInput, budget: StagePromptBudget = defaultStagePromptBudget()): ChatMessage[] {
  return directorPrompt(input, budget).messages;
}

// The fitted messages with their token count, which the stage call's last check reuses.
function directorPrompt(input: DirectorInput, budget: StagePromptBudget): FittedStagePrompt {
  const proposals = input.proposals.map((p) => `- ${p.name} (${p.characterId}): intent ${p.proposal.intent}; action ${p.proposal.action}; says "${p.proposal.dialogue}"`).join('\n') || '(none)';
  const sections = input.sections.map((s) => `- ${s.id} [${s.kind}] "${s.title}" focus: ${s.focus ? s.focus.name : 'all participants'}`).join('\n');
  return fitStagePrompt(
    budget,
    STORY_STAGES.director,
    'You are the director of a multi-character story. Combine the independent character proposals into this turn\'s plan. A character who has not witnessed or been told something must not act as if they know it; never make anyone omniscient. Follow the outline, keep foreshadowing hidden until it is due. Output JSON {"beats": string[], "sectionNotes": [{"sectionId": string, "note": string}]}.',
    [
      [STAGE_BLOCKS.outline, input.outline || '(empty)', 'head'],
      [STAGE_BLOCKS.foreshadowing, input.foreshadowing || '(empty)', 'head'],
      [STAGE_BLOCKS.publicHistory, input.publicHistory || '(empty)', 'tail'],
      [STAGE_BLOCKS.researchBrief, `${input.research.facts.map((f) => `- ${f}`).join('\n') || '(none)'}\n${input.research.continuity}`, 'head'],
      [STAGE_BLOCKS.characterProposals, proposals, 'head'],
      [STAGE_BLOCKS.sections, sections, 'fixed'],
      [STAGE_BLOCKS.playerInput, input.playerInput, 'fixed'],
    ],
  );
}

/**
 * Runs the director: this turn's plan from outline, foreshadowing, public history, brief, proposals and sections.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the validated plan
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_OUTPUT_INVALID; the abort reason when cancelled (never recorded as a failure)
 */
export function runDirector(env: StageEnvironment, input: DirectorInput): Promise<DirectorPlan> {
  return callJsonStage(env, { stage: STORY_STAGES.director, ...directorPrompt(input, stageBudget(env)) }, DirectorPlanSchema, 'director_plan');
}

/**
 * The bounded fallback plan when the director fails: the player input, each proposal's action and
 * the leading research facts, each clipped, at most {@link FALLBACK_PLAN_LIMITS}.maxBeats beats.
 * @param input - the director's input
 * @returns a plan marked `fallback: true` (never throws)
 */
export function fallbackPlan(input: DirectorInput): DirectorPlan {
  const clip = (text: string) => (text.length > FALLBACK_PLAN_LIMITS.maxBeatChars ? `${text.slice(0, FALLBACK_PLAN_LIMITS.maxBeatChars - 1)}…` : text);
  const beats = [
    `Respond to the player: ${input.playerInput}`,
    ...input.proposals.map((p) => `${p.name}: ${p.proposal.action}`),
    ...input.research.facts.map((fact) => `Keep consistent: ${fact}`),
  ]
    .slice(0, FALLBACK_PLAN_LIMITS.maxBeats)
    .map(clip);
  return { beats, sectionNotes: [], fallback: true };
}
