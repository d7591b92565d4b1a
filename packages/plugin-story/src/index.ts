// Public API of @troupe/plugin-story. Explicit named exports only.
export { storyPlugin, STORY_PLUGIN_NAME } from './plugin.js';
export type { StoryPluginOptions } from './plugin.js';
export { StoryError } from './errors.js';
export type { StoryErrorCode } from './errors.js';
export { draftKey, SELECTION_KEY, settleMarker, STORY_EVENTS } from './events.js';
export { clearStoryWorkspace, readStoryWorkspaceSelection, selectStoryWorkspace } from './selection.js';
export type { SelectionOptions } from './selection.js';
export { StoryWorkspaces } from './workspace/story-workspaces.js';
export { StoryWorkspaceFiles } from './workspace/workspace-files.js';
export type {
  CharacterPatch,
  CreateWorkspaceOptions,
  NewCharacter,
  NewSection,
  NewSource,
  SectionPatch,
  SettingsPatch,
  SourcePatch,
  StoryWorkspaceSnapshot,
} from './workspace/workspace-types.js';
export type { PipelinePatch } from './workspace/manifest-entries.js';
export {
  CharacterEntrySchema,
  DEFAULT_PREPARATION_DEADLINE_MS,
  DEFAULT_STAGE_TIMEOUT_MS,
  formatFieldPath,
  orderedEnabledSections,
  parseManifest,
  PipelineSettingsSchema,
  SectionEntrySchema,
  serializeManifest,
  SourceEntrySchema,
  STORY_ITEM_ID_PATTERN,
  StoryManifestSchema,
  validateManifest,
} from './workspace/manifest.js';
export type { CharacterEntry, PipelineSettings, SectionEntry, SourceEntry, StoryManifest, StoryManifestInput } from './workspace/manifest.js';
export { knowledgePath, personaPath, sectionPath, sourcePath, WORKSPACE_FILES } from './workspace/layout.js';
export { prepareDraft } from './pipeline/prepare-draft.js';
export type { PrepareDraftInput } from './pipeline/prepare-draft.js';
export { settleTurn } from './pipeline/settle-turn.js';
export type { TurnSettlement } from './pipeline/settle-turn.js';
export { mapBounded } from './pipeline/limiter.js';
export { callJsonStage, callProseStage, parseJsonOutput } from './pipeline/stage-call.js';
export type { StageCall, StageEnvironment, StoryEventSink, StoryStage } from './pipeline/stage-call.js';
export { briefFromSnippets, ResearchBriefSchema, researchMessages, runResearch } from './stages/research.js';
export type { ResearchBrief, ResearchInput } from './stages/research.js';
export { CharacterProposalSchema, characterMessages, runCharacter } from './stages/character.js';
export type { CharacterProposal, CharacterWorkerInput } from './stages/character.js';
export { DirectorPlanSchema, directorMessages, FALLBACK_PLAN_LIMITS, fallbackPlan, runDirector } from './stages/director.js';
export type { DirectorInput, DirectorPlan, SectionDefinition } from './stages/director.js';
export { runSection, sectionMessages } from './stages/section.js';
export type { SectionWriterInput } from './stages/section.js';
export { assembleDrafts, checkStructure, editorMessages, runEditor } from './stages/editor.js';
export type { EditorInput, SectionDraft } from './stages/editor.js';
export { ContinuityResultSchema, continuityMessages, runContinuity } from './stages/continuity.js';
export type { ContinuityInput, ContinuityResult } from './stages/continuity.js';
export { SourceIndex } from './retrieval/source-index.js';
export type { IndexSource, SourceIndexStats } from './retrieval/source-index.js';
export { capSnippets, DEFAULT_RETRIEVAL_LIMITS } from './retrieval/snippet.js';
export type { RetrievalLimits, Snippet } from './retrieval/snippet.js';
export { hasFullIcu, processTerm, tokenize } from './retrieval/tokenizer.js';
export { chunkMarkdown } from './retrieval/chunk-markdown.js';
export type { MarkdownChunk } from './retrieval/chunk-markdown.js';
export { searxngProvider } from './web/searxng.js';
export type { SearxngOptions } from './web/searxng.js';
export type { WebSearchOptions, WebSearchProvider, WebSearchResult } from './web/web-search.js';
