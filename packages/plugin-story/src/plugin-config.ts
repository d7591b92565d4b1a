import type { TreeStore } from '@troupe/kernel';
import * as z from 'zod';
import type { StagePromptSettings } from './budget/stage-budget.js';
import { DEFAULT_RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval/snippet.js';
import type { WebSearchProvider } from './web/web-search.js';

/** Options of `storyPlugin`, checked at boot (`KERNEL_PLUGIN_CONFIG_INVALID` names the field). */
export interface StoryPluginOptions {
  /** Where workspaces live; default: the harness's `Tokens.TreeStore`. */
  readonly trees?: TreeStore;
  /** Optional web search for the research stage. */
  readonly webSearch?: WebSearchProvider;
  /** Caps on retrieved snippets. */
  readonly retrieval?: Partial<RetrievalLimits>;
  /** How many recent conversation messages the research stage and retrieval see (0–200, default 6). */
  readonly recentMessages?: number;
  /**
   * Token budget of every stage prompt (the pipeline model's window minus its answer), and how
   * much public history and character knowledge start from. Counted with the pipeline model's
   * tokenizer, else the kernel's estimate.
   */
  readonly stagePrompt?: StagePromptSettings;
}

/** The settings the plugin's services read (defaults applied). */
export interface StorySettings {
  readonly limits: RetrievalLimits;
  readonly recentMessages: number;
  readonly stagePrompt: StagePromptSettings;
}

const hasMethods = (...names: string[]) => (value: unknown) =>
  typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/** The zod schema of {@link StoryPluginOptions}. */
export const StoryPluginOptionsSchema = z
  .object({
    trees: z.custom<TreeStore>(hasMethods('read', 'commit'), 'expected a TreeStore (read, commit, …)').optional(),
    webSearch: z.custom<WebSearchProvider>(hasMethods('search'), 'expected a WebSearchProvider with search(query, options)').optional(),
    retrieval: z
      .object({
        maxSnippets: z.int().min(0).max(100),
        maxSnippetChars: z.int().min(20).max(100_000),
        maxTotalChars: z.int().min(0).max(1_000_000),
      })
      .partial()
      .strict()
      .optional(),
    recentMessages: z.int().min(0).max(200).optional(),
    stagePrompt: z
      .object({
        contextTokens: z.int().min(256).max(10_000_000),
        responseTokens: z.int().min(1).max(1_000_000),
        historyTokens: z.int().min(0).max(1_000_000),
        knowledgeTokens: z.int().min(0).max(1_000_000),
        recentTurns: z.int().min(1).max(10_000),
        olderExcerpts: z.int().min(0).max(100),
      })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

/**
 * The services' settings from validated options.
 * @param options - options that passed {@link StoryPluginOptionsSchema}
 */
export function storySettings(options: StoryPluginOptions): StorySettings {
  return { limits: { ...DEFAULT_RETRIEVAL_LIMITS, ...options.retrieval }, recentMessages: options.recentMessages ?? 6, stagePrompt: options.stagePrompt ?? {} };
}
