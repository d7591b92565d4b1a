import { STORY_STAGES } from '@troupe/kernel/stage-prompt';
import type { ChatMessage } from '@troupe/kernel';
import { checkDraftSize, type DraftBudget } from '../budget/draft-budget.js';
import { StoryError } from '../errors.js';
import { callProseStage, type StageEnvironment } from '../pipeline/stage-call.js';

/** One written section, as the editor receives it. */
export interface SectionDraft {
  readonly id: string;
  readonly title: string;
  readonly kind: 'prose' | 'character' | 'history';
  readonly text: string;
}

/**
 * What the editor may read (seed table): the section drafts in workspace order. No workspace files
 * and no character-private files.
 */
export interface EditorInput {
  readonly drafts: readonly SectionDraft[];
}

/**
 * Joins drafts the way the editor receives them and the actor gets them when editing fails: each
 * section under its own `##` heading in order; a single prose section stays natural text.
 * @param drafts - drafts in workspace order
 * @returns the assembled text (never throws)
 */
export function assembleDrafts(drafts: readonly SectionDraft[]): string {
  if (isSingleProse(drafts)) return drafts[0]?.text ?? '';
  return drafts.map((d) => `## ${d.title}\n\n${d.text}`).join('\n\n');
}

function isSingleProse(drafts: readonly SectionDraft[]): boolean {
  return drafts.length === 1 && drafts[0]?.kind === 'prose';
}

/**
 * Builds the editor's messages: the system rules and a user message made only from the scoped input.
 * @param input - the scoped input (its type is the cognitive boundary)
 * @returns the chat messages (system, user)
 */
export function editorMessages(input: EditorInput): ChatMessage[] {
  const structure = isSingleProse(input.drafts)
    ? 'The text is one natural prose passage: do not add headings.'
    : `Keep every "## " heading exactly as given and in the same order (${input.drafts.map((d) => d.title).join(' → ')}); never merge or reorder sections.`;
  return [
    {
      role: 'system',
      content: `You are the editor. Remove repetition, stock phrasing and any explanation outside the story. Keep every fact, who says each line, the point of view, and each section's role. ${structure} Output only the edited text.`,
    },
    { role: 'user', content: assembleDrafts(input.drafts) },
  ];
}

/**
 * Runs the editor and checks it kept the section headings and their order.
 * @param env - the turn's model, signal, identity and event sink
 * @param input - the scoped input (its type is the cognitive boundary)
 * @param limit - the turn's draft budget: a longer answer is rejected
 * @returns the edited draft
 * @throws {StoryError} STORY_STAGE_MODEL_FAILED, STORY_STAGE_EMPTY, STORY_STAGE_OUTPUT_TOO_LARGE (over `limit`), STORY_EDITOR_STRUCTURE (headings merged, renamed, reordered, or added to single prose); the abort reason when cancelled (never recorded as a failure)
 */
export function runEditor(env: StageEnvironment, input: EditorInput, limit?: DraftBudget): Promise<string> {
  return callProseStage(env, { stage: STORY_STAGES.editor, messages: editorMessages(input) }, (edited) => {
    checkStructure(edited, input.drafts);
    if (limit) checkDraftSize(edited, limit, 'STORY_STAGE_OUTPUT_TOO_LARGE', 'The editor');
  });
}

/**
 * Verifies the edited text has exactly the drafts' `##` headings in order (none for single prose),
 * so the editor never merges, renames or reorders sections.
 * @param edited - the editor's text
 * @param drafts - the drafts it was given, in workspace order
 * @returns nothing when the structure is kept
 * @throws {StoryError} STORY_EDITOR_STRUCTURE naming the expected and the actual headings
 */
export function checkStructure(edited: string, drafts: readonly SectionDraft[]): void {
  const headings = headingsOf(edited);
  const expected = isSingleProse(drafts) ? [] : drafts.map((d) => d.title.trim());
  if (headings.length !== expected.length || headings.some((h, i) => h !== expected[i])) {
    throw new StoryError('STORY_EDITOR_STRUCTURE', `The editor changed the section headings: expected [${expected.join(', ')}], got [${headings.join(', ')}]`);
  }
}

// The `## ` heading lines of a text, trimmed: one scan for line starts instead of splitting the
// whole edited text into lines (it runs on every turn's editor answer).
function headingsOf(text: string): string[] {
  const headings: string[] = [];
  for (let at = 0; at <= text.length; ) {
    const newline = text.indexOf('\n', at);
    const end = newline < 0 ? text.length : newline;
    if (text.startsWith('## ', at)) headings.push(text.slice(at + 3, end).trim());
    if (newline < 0) break;
    at = newline + 1;
  }
  return headings;
}
