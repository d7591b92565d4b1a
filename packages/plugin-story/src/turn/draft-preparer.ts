import { contextKeys, type TreeStore, type TurnContext } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { abortReason, describeError } from '@troupe/kernel/util';
import * as z from 'zod';
import { checkDraftSize, draftBudget } from '../budget/draft-budget.js';
import { StoryError } from '../errors.js';
import { draftKey, STORY_EVENTS, settleMarker } from '../events.js';
import { prepareDraft } from '../pipeline/prepare-draft.js';
import type { StorySettings } from '../plugin-config.js';
import type { SourceIndexCache } from '../retrieval/source-index-cache.js';
import { worldInfoSnippets } from '../retrieval/world-info-snippets.js';
import { NO_WEB_SEARCH, StoryTokens } from '../story-tokens.js';
import type { WebSearchProvider } from '../web/web-search.js';
import { WORKSPACE_FILES } from '../workspace/layout.js';
import type { StoryManifest } from '../workspace/manifest.js';
import { parseManifestForTurn } from '../workspace/manifest-memo.js';
import { stageEnvironment, storyEmitter, turnWorkspaceKey } from './stage-env.js';

const PreparedDraftSchema = z.object({ text: z.string(), workspaceId: z.string(), revision: z.number().int() });

/**
 * The plugin's `preActor` step: when the session has a workspace selected, prepares (or replays)
 * the edited draft and hands it to the actor through `contextKeys.storyDraft`. Any failure other
 * than cancellation degrades to the plain character flow with a `story-degraded` event.
 */
@injectable()
export class StoryDraftPreparer {
  readonly #trees: TreeStore;
  readonly #indexes: SourceIndexCache;
  readonly #webSearch: WebSearchProvider | undefined;
  readonly #settings: StorySettings;

  /**
   * @param trees - where workspaces live
   * @param indexes - search indexes per workspace
   * @param webSearch - web search, or {@link NO_WEB_SEARCH}
   * @param settings - retrieval caps and history length
   */
  constructor(
    @inject(StoryTokens.WorkspaceStore) trees: TreeStore,
    @inject(StoryTokens.SourceIndexCache) indexes: SourceIndexCache,
    @inject(StoryTokens.WebSearchProvider) webSearch: WebSearchProvider,
    @inject(StoryTokens.Settings) settings: StorySettings,
  ) {
    this.#trees = trees;
    this.#indexes = indexes;
    this.#webSearch = webSearch === NO_WEB_SEARCH ? undefined : webSearch;
    this.#settings = settings;
  }

  /**
   * Runs for one turn.
   * @param input - the player's text
   * @param ctx - the turn context
   * @param workspaceId - the session's selected workspace, read once by the caller for both steps
   */
  async preActor(input: string, ctx: TurnContext, workspaceId: string): Promise<void> {
    const emit = storyEmitter(ctx);
    const fail = (stage: string, error: unknown, extra: Record<string, unknown> = {}) => {
      if (ctx.signal.aborted) throw abortReason(ctx.signal);
      const described = describeError(error);
      emit(STORY_EVENTS.degraded, {
        stage,
        workspaceId,
        fallback: 'plain-character-flow',
        ...extra,
        error: { code: described.code ?? 'STORY_PREPARATION_FAILED', message: described.message, ...(StoryError.isInstance(error) && error.field ? { field: error.field } : {}) },
      });
    };
    let snapshot: Awaited<ReturnType<TreeStore['read']>>;
    try {
      snapshot = await this.#trees.read(workspaceId);
    } catch (error) {
      return fail('workspace', error);
    }
    ctx.set(turnWorkspaceKey, { workspaceId, snapshot });
    // Committed with the turn: if the process dies before postReview settles, the kernel
    // finishes the turn later from the log and this says where it settles.
    emit(STORY_EVENTS.turnWorkspace, { workspaceId }, settleMarker(ctx.turnId, ctx.step));
    const key = draftKey(ctx.turnId, ctx.step, workspaceId, snapshot.revision);
    // Nearly every turn has nothing to replay: no schema check (and no failed parse) then.
    const prepared = await ctx.events.findLatest({ type: STORY_EVENTS.draftPrepared, key });
    const replay = prepared ? PreparedDraftSchema.safeParse(prepared.data) : undefined;
    const limit = draftBudget(ctx.get(contextKeys.tokenBudget));
    if (replay?.success) {
      // Prepared under the budget of its first attempt; the chat's context size may have shrunk since.
      try {
        checkDraftSize(replay.data.text, limit, 'STORY_DRAFT_TOO_LARGE', 'The replayed preparation');
      } catch (error) {
        return fail('draft', error);
      }
      ctx.set(contextKeys.storyDraft, replay.data);
      emit(STORY_EVENTS.draftReplayed, { key, workspaceId, revision: snapshot.revision });
      return;
    }
    // Every step prepares its own draft (a regenerated reply gets a fresh one; replay is keyed by step).
    let manifest: StoryManifest;
    try {
      manifest = parseManifestForTurn(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
    } catch (error) {
      return fail('manifest', error);
    }
    const { deadlineMs } = manifest.pipeline;
    const deadlineAt = ctx.clock.now() + deadlineMs;
    try {
      const text = await prepareDraft({
        env: stageEnvironment(ctx, manifest, deadlineAt, (type, data) => emit(type, data), this.#settings.stagePrompt),
        manifest,
        files: snapshot.files,
        revision: snapshot.revision,
        playerInput: input,
        recentConversation: ctx.history.slice(-this.#settings.recentMessages),
        index: this.#indexes.indexFor(workspaceId),
        documentIndex: (path) => this.#indexes.documentIndexFor(workspaceId, path),
        limits: this.#settings.limits,
        webSearch: this.#webSearch,
        worldInfo: worldInfoSnippets(ctx.get(contextKeys.worldInfo)),
        draftBudget: limit,
      });
      const draft = { text, workspaceId, revision: snapshot.revision };
      ctx.set(contextKeys.storyDraft, draft);
      emit(STORY_EVENTS.draftPrepared, { ...draft, key }, key);
    } catch (error) {
      // A preparation that ran out of time says so, whichever stage noticed it last.
      const late = StoryError.isInstance(error) && error.code === 'STORY_DEADLINE_EXCEEDED';
      if (!ctx.signal.aborted && ctx.clock.now() >= deadlineAt && !late) {
        return fail('preparation', new StoryError('STORY_DEADLINE_EXCEEDED', `Story preparation passed its deadline of ${deadlineMs} ms (pipeline.deadlineMs): ${describeError(error).message}`), { deadlineMs });
      }
      fail('preparation', error, late ? { deadlineMs } : {});
    }
  }
}
