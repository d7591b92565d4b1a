// Public API of @troupe/plugin-story: the plugin, the workspace API an app edits stories with,
// session selection, the web search port and its SearXNG provider, events and errors. Stages,
// retrieval and pipeline helpers are internals.
export { storyPlugin, STORY_PLUGIN_NAME } from './plugin.js';
export type { StoryPluginOptions } from './plugin.js';
export { StoryPluginOptionsSchema } from './plugin-config.js';
export { StoryTokens } from './story-tokens.js';
export { SourceIndexCache } from './retrieval/source-index-cache.js';
export { StoryError } from './errors.js';
export type { StoryErrorCode } from './errors.js';
export { STORY_EVENTS } from './events.js';
export { clearStoryWorkspace, readStoryWorkspaceSelection, selectStoryWorkspace } from './selection.js';
export { forkStoryForBranch } from './branch/fork-story.js';
export type { ForkStoryInput, ForkStoryOutcome } from './branch/fork-story.js';
export type { SelectionOptions } from './selection.js';
export { StoryWorkspaces } from './workspace/story-workspaces.js';
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
export { DEFAULT_PREPARATION_DEADLINE_MS, DEFAULT_STAGE_TIMEOUT_MS, parseManifest, STORY_ITEM_ID_PATTERN } from './workspace/manifest.js';
export type { CharacterEntry, PipelineSettings, SectionEntry, SourceEntry, StoryManifest, StoryManifestInput } from './workspace/manifest.js';
export { WORKSPACE_FILES } from './workspace/layout.js';
export { searxngProvider } from './web/searxng.js';
export type { SearxngOptions } from './web/searxng.js';
export type { WebSearchOptions, WebSearchProvider, WebSearchResult } from './web/web-search.js';
// The stage-prompt contract: the headings and layout of every stage's message. Declared in the
// kernel so a model package (model-offline) can read it without importing this plugin.
export { STAGE_BLOCKS, STAGE_LAYOUTS, STORY_STAGES } from '@troupe/kernel/stage-prompt';
export type { StageBlockId, StoryStageName } from '@troupe/kernel/stage-prompt';
