// @troupe/kernel/stage-prompt: the declared format of the story pipeline's stage messages.
// plugin-story writes its stage prompts with these headings and builders; a model that simulates
// the stages (model-offline) reads them back with the same definitions. It lives in the kernel
// because plugins and model packages may not import each other.
export { STAGE_BLOCKS, STAGE_LAYOUTS, STORY_STAGES, knowledgeHeading } from './stage-blocks.js';
export type { StageBlockId, StoryStageName } from './stage-blocks.js';
export { isKnowledgeHeading, isStageHeading, parsePromptBlocks, readPromptBlocks, renderPromptBlocks } from './prompt-blocks.js';
export type { PromptBlock } from './prompt-blocks.js';
