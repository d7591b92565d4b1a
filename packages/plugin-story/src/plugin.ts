import { abortReason, describeError } from '@troupe/kernel/util';
import { type ChatModel, contextKeys, defineContextKey, definePlugin, type PluginDefinition, type TreeStore, type TurnContext, Tokens } from '@troupe/kernel';
import { StoryError } from './errors.js';
import { draftKey, STORY_EVENTS, settleMarker } from './events.js';
import { prepareDraft } from './pipeline/prepare-draft.js';
import { worldInfoSnippets } from './retrieval/world-info-snippets.js';
import type { StageEnvironment } from './pipeline/stage-call.js';
import { settleTurn } from './pipeline/settle-turn.js';
import { DEFAULT_RETRIEVAL_LIMITS, type RetrievalLimits } from './retrieval/snippet.js';
import { SourceIndex } from './retrieval/source-index.js';
import { readStoryWorkspaceSelection } from './selection.js';
import type { WebSearchProvider } from './web/web-search.js';
import { WORKSPACE_FILES } from './workspace/layout.js';
import { parseManifest, type StoryManifest } from './workspace/manifest.js';
import * as z from 'zod';

/** Options of {@link storyPlugin}. */
export interface StoryPluginOptions {
  /** Where workspaces live; default: the harness's `Tokens.TreeStore`. */
  readonly trees?: TreeStore;
  /** Optional web search for the research stage. */
  readonly webSearch?: WebSearchProvider;
  /** Caps on retrieved snippets. */
  readonly retrieval?: Partial<RetrievalLimits>;
  /** How many recent conversation messages the research stage and retrieval see (default 6). */
  readonly recentMessages?: number;
}

/** The plugin's name (and npm package). */
export const STORY_PLUGIN_NAME = '@troupe/plugin-story';

/** What preActor tells postReview about this turn's workspace. */
const turnWorkspaceKey = defineContextKey<{ readonly workspaceId: string }>('@troupe/plugin-story/turn-workspace');

const PreparedDraftSchema = z.object({ text: z.string(), workspaceId: z.string(), revision: z.number().int() });
const TurnWorkspaceSchema = z.object({ workspaceId: z.string() });

/**
 * The story workspace plugin: when a session has a workspace selected, `preActor` (step 0 of a
 * turn) prepares an edited draft through the stage pipeline and hands it to the actor via
 * `contextKeys.storyDraft`; `postReview` settles the visible reply into the workspace.
 * @param options - storage, web search, retrieval caps
 * @returns the plugin definition
 */
export function storyPlugin(options: StoryPluginOptions = {}): PluginDefinition {
  return definePlugin({
    name: STORY_PLUGIN_NAME,
    version: '0.1.0',
    kernel: '>=0.1.0 <1.0.0',
    setup(setup) {
      const trees = options.trees ?? (setup.container.isRegistered(Tokens.TreeStore, true) ? setup.container.resolve(Tokens.TreeStore) : undefined);
      if (!trees) {
        setup.logger.warn('no TreeStore: story workspaces are disabled (give `trees` to the harness or the plugin)');
        return;
      }
      const limits: RetrievalLimits = { ...DEFAULT_RETRIEVAL_LIMITS, ...options.retrieval };
      const recentMessages = options.recentMessages ?? 6;
      // Search indexes are a cache keyed by workspace; a source is re-indexed only when its hash changes.
      const indexes = new Map<string, SourceIndex>();
      const indexFor = (workspaceId: string) => {
        const existing = indexes.get(workspaceId);
        if (existing) return existing;
        const index = new SourceIndex({ chunkChars: limits.maxSnippetChars });
        indexes.set(workspaceId, index);
        return index;
      };

      // `degradable` is only the backstop for the kernel's hook timeout (a pipeline deadline set
      // longer than it): the plugin reports its own degradations with exact events.
      setup.hooks.preActor({ degradable: true, handler: async (input, ctx) => {
        const workspaceId = await readStoryWorkspaceSelection((key) => ctx.events.findLatest(key));
        if (!workspaceId) return;
        const emit = (type: string, data: unknown, key?: string) => ctx.events.append(type, data, { ignorable: true, ...(key ? { key } : {}) });
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
          snapshot = await trees.read(workspaceId);
        } catch (error) {
          return fail('workspace', error);
        }
        ctx.set(turnWorkspaceKey, { workspaceId });
        // Committed with the turn: if the process dies before postReview settles, the kernel
        // finishes the turn later from the log and this says where it settles.
        emit(STORY_EVENTS.turnWorkspace, { workspaceId }, settleMarker(ctx.turnId));
        const key = draftKey(ctx.turnId, ctx.step, workspaceId, snapshot.revision);
        const replay = PreparedDraftSchema.safeParse((await ctx.events.findLatest({ type: STORY_EVENTS.draftPrepared, key }))?.data);
        if (replay.success) {
          ctx.set(contextKeys.storyDraft, replay.data);
          emit(STORY_EVENTS.draftReplayed, { key, workspaceId, revision: snapshot.revision });
          return;
        }
        if (ctx.step !== 0) {
          emit(STORY_EVENTS.skipped, { workspaceId, reason: 'not-first-step', step: ctx.step });
          return;
        }
        let manifest: StoryManifest;
        try {
          manifest = parseManifest(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
        } catch (error) {
          return fail('manifest', error);
        }
        const { deadlineMs } = manifest.pipeline;
        const deadlineAt = ctx.clock.now() + deadlineMs;
        try {
          const env = stageEnv(ctx, resolveModel(ctx, manifest), manifest, deadlineAt, (type, data) => emit(type, data));
          const text = await prepareDraft({
            env,
            manifest,
            files: snapshot.files,
            playerInput: input,
            recentConversation: ctx.history.slice(-recentMessages),
            index: indexFor(workspaceId),
            limits,
            webSearch: options.webSearch,
            worldInfo: worldInfoSnippets(ctx.get(contextKeys.worldInfo)),
          });
          const draft = { text, workspaceId, revision: snapshot.revision };
          ctx.set(contextKeys.storyDraft, draft);
          emit(STORY_EVENTS.draftPrepared, { ...draft, key }, key);
        } catch (error) {
          // A preparation that ran out of time says so, whichever stage noticed it last.
          if (!ctx.signal.aborted && ctx.clock.now() >= deadlineAt && !(StoryError.isInstance(error) && error.code === 'STORY_DEADLINE_EXCEEDED')) {
            return fail('preparation', new StoryError('STORY_DEADLINE_EXCEEDED', `Story preparation passed its deadline of ${deadlineMs} ms (pipeline.deadlineMs): ${describeError(error).message}`), { deadlineMs });
          }
          fail('preparation', error, StoryError.isInstance(error) && error.code === 'STORY_DEADLINE_EXCEEDED' ? { deadlineMs } : {});
        }
      } });

      setup.hooks.postReview(async (turn, ctx) => {
        const marker = settleMarker(turn.turnId);
        // A turn finished later from the log (resumed) has no context values: read its record.
        const selected = ctx.get(turnWorkspaceKey) ?? TurnWorkspaceSchema.safeParse((await ctx.events.findLatest({ type: STORY_EVENTS.turnWorkspace, key: marker }))?.data).data;
        if (!selected) return;
        const { workspaceId } = selected;
        const emit = (type: string, data: unknown, key?: string) => ctx.events.append(type, data, { ignorable: true, ...(key ? { key } : {}) });
        // A retried or regenerated turn already settled: no model call, no second write.
        if (await ctx.events.findLatest({ type: STORY_EVENTS.settled, key: marker })) return;
        const snapshot = await trees.read(workspaceId);
        let manifest: StoryManifest;
        try {
          manifest = parseManifest(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
        } catch (error) {
          const described = describeError(error);
          emit(STORY_EVENTS.degraded, { stage: 'story/continuity', workspaceId, fallback: 'not-settled', error: { code: described.code, message: described.message } });
          return;
        }
        // Continuity runs after the reply: only the per-stage timeout bounds it.
        const env = stageEnv(ctx, resolveModel(ctx, manifest), manifest, Number.POSITIVE_INFINITY, (type, data) => emit(type, data));
        const result = await settleTurn({ env, trees, workspaceId, manifest, files: snapshot.files, reply: turn.reply });
        emit(STORY_EVENTS.settled, { workspaceId, ...result }, marker);
      });
    },
  });
}

function resolveModel(ctx: TurnContext, manifest: StoryManifest): ChatModel {
  const { provider, model } = manifest.pipeline;
  return provider === undefined && model === undefined ? ctx.models.resolve() : ctx.models.resolve({ ...(provider ? { provider } : {}), ...(model ? { model } : {}) });
}

function stageEnv(ctx: TurnContext, model: ChatModel, manifest: StoryManifest, deadlineAt: number, emit: StageEnvironment['emit']): StageEnvironment {
  const { stageTimeoutMs, deadlineMs } = manifest.pipeline;
  return { model, signal: ctx.signal, sessionId: ctx.sessionId, turnId: ctx.turnId, emit, clock: ctx.clock, stageTimeoutMs, deadlineAt, deadlineMs };
}
