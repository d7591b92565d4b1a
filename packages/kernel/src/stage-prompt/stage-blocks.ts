/** The model-call stages of the story pipeline, as sent in `ChatRequest.meta.stage`. */
export const STORY_STAGES = Object.freeze({
  research: 'story/research',
  character: 'story/character',
  director: 'story/director',
  section: 'story/section',
  editor: 'story/editor',
  continuity: 'story/continuity',
} as const);

/** A story stage name (`story/research`, …). */
export type StoryStageName = (typeof STORY_STAGES)[keyof typeof STORY_STAGES];

/**
 * The `## ` headings of the blocks in a stage's user message. `knowledge` is written per
 * character with {@link knowledgeHeading}; the value here is its pattern's readable form.
 */
export const STAGE_BLOCKS = Object.freeze({
  playerInput: 'Player input',
  recentConversation: 'Recent conversation',
  publicHistory: 'Public history',
  referenceSnippets: 'Reference snippets',
  persona: 'Persona',
  knowledge: 'What {name} knows',
  outline: 'Outline',
  foreshadowing: 'Foreshadowing',
  researchBrief: 'Research brief',
  characterProposals: 'Character proposals',
  sections: 'Sections',
  sectionReference: 'Section reference',
  directorsPlan: "Director's plan",
  visibleReply: 'Visible reply',
  participants: 'Participants',
} as const);

/** The id of a stage block (`playerInput`, `persona`, …). */
export type StageBlockId = keyof typeof STAGE_BLOCKS;

/**
 * Which blocks each stage's user message carries, in order. The editor's message is the drafts
 * themselves (one `## <section title>` per section), so it has no fixed blocks.
 */
export const STAGE_LAYOUTS: Readonly<Record<Exclude<StoryStageName, 'story/editor'>, readonly StageBlockId[]>> = Object.freeze({
  'story/research': ['publicHistory', 'recentConversation', 'referenceSnippets', 'playerInput'],
  'story/character': ['persona', 'knowledge', 'playerInput'],
  'story/director': ['outline', 'foreshadowing', 'publicHistory', 'researchBrief', 'characterProposals', 'sections', 'playerInput'],
  'story/section': ['sectionReference', 'directorsPlan', 'playerInput'],
  'story/continuity': ['visibleReply', 'outline', 'foreshadowing', 'participants'],
});

/**
 * The heading of a character's knowledge block.
 * @param name - the character's display name
 * @returns `What <name> knows`
 */
export function knowledgeHeading(name: string): string {
  return STAGE_BLOCKS.knowledge.replace('{name}', name);
}
