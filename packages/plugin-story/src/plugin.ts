import { definePlugin, type PluginDefinition, Tokens } from '@troupe/kernel';
import { type StoryPluginOptions, StoryPluginOptionsSchema, storySettings } from './plugin-config.js';
import { SourceIndexCache } from './retrieval/source-index-cache.js';
import { readStoryWorkspaceSelection } from './selection.js';
import { NO_WEB_SEARCH, StoryTokens } from './story-tokens.js';
import { KeptStepReconciler } from './continuity/kept-step-reconciler.js';
import { StoryDraftPreparer } from './turn/draft-preparer.js';
import { StoryReplySettler } from './turn/reply-settler.js';

export type { StoryPluginOptions } from './plugin-config.js';

/** The plugin's name (and npm package). */
export const STORY_PLUGIN_NAME = '@troupe/plugin-story';

/**
 * The story workspace plugin: when a session has a workspace selected, `preActor` (step 0 of a
 * turn) prepares an edited draft through the stage pipeline and hands it to the actor via
 * `contextKeys.storyDraft`; `postReview` settles the visible reply into the workspace. Its
 * services are built by the harness's container; an app overrides any of them by
 * {@link StoryTokens} token.
 * @param options - storage, web search, retrieval caps (validated at boot)
 * @returns the plugin definition
 */
export function storyPlugin(options: StoryPluginOptions = {}): PluginDefinition<StoryPluginOptions> {
  return definePlugin<StoryPluginOptions>({
    name: STORY_PLUGIN_NAME,
    version: '0.1.0',
    kernel: '>=0.1.0 <1.0.0',
    configSchema: StoryPluginOptionsSchema,
    config: options,
    setup(ctx) {
      const trees = ctx.config.trees ?? (ctx.container.isRegistered(Tokens.TreeStore, true) ? ctx.resolve(Tokens.TreeStore) : undefined);
      if (trees) ctx.provide({ token: StoryTokens.WorkspaceStore, useValue: trees });
      if (!ctx.container.isRegistered(StoryTokens.WorkspaceStore, true)) {
        ctx.logger.warn('no TreeStore: story workspaces are disabled (give `trees` to the harness or the plugin)');
        return;
      }
      ctx.provide({ token: StoryTokens.Settings, useValue: storySettings(ctx.config) });
      ctx.provide({ token: StoryTokens.WebSearchProvider, useValue: ctx.config.webSearch ?? NO_WEB_SEARCH });
      ctx.provide({ token: StoryTokens.SourceIndexCache, useClass: SourceIndexCache });
      const reconciler = ctx.resolve(KeptStepReconciler);
      const preparer = ctx.resolve(StoryDraftPreparer);
      const settler = ctx.resolve(StoryReplySettler);
      // `degradable` is only the backstop for the kernel's hook timeout (a pipeline deadline set
      // longer than it): the plugin reports its own degradations with exact events.
      // The continuity record follows swipes, edits and deletes before the pipeline reads it.
      ctx.hooks.preActor({
        degradable: true,
        handler: async (input, turn) => {
          // The selection is read once for both steps (each would look it up and check it).
          const workspaceId = await readStoryWorkspaceSelection((key) => turn.events.findLatest(key));
          if (!workspaceId) return;
          await reconciler.reconcile(turn, workspaceId);
          await preparer.preActor(input, turn, workspaceId);
        },
      });
      // Started while the commit is stored: the continuity call overlaps that wait (on storage-fs
      // an fsync); the settler writes nothing before `turn.stored`.
      ctx.hooks.postReview({ duringCommit: true, handler: (turn, context) => settler.postReview(turn, context) });
    },
  });
}
