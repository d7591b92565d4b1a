import { CHAT_CONTROL_EVENTS, type TreeStore, type TurnContext } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { abortReason, describeError } from '@troupe/kernel/util';
import * as z from 'zod';
import { STORY_EVENTS } from '../events.js';
import { continuityAppends } from '../pipeline/settle-turn.js';
import type { StorySettings } from '../plugin-config.js';
import { StoryTokens } from '../story-tokens.js';
import { stageEnvironment, storyEmitter } from '../turn/stage-env.js';
import { WORKSPACE_FILES } from '../workspace/layout.js';
import { parseManifestForTurn } from '../workspace/manifest-memo.js';
import { planKeptSteps, type SettleBlock } from './kept-step-plan.js';
import { type BlockRewrite, commitBlockRewrites } from './rewrite-blocks.js';

const CONTROL_TYPES = [CHAT_CONTROL_EVENTS.stepSelected, CHAT_CONTROL_EVENTS.turnEdited, CHAT_CONTROL_EVENTS.turnsRemoved] as const;
const ReconciledSchema = z.object({ through: z.record(z.string(), z.string()) });

/**
 * Keeps a story's continuity record in line with the chat controls: when the player swiped to
 * another step, edited a reply or deleted turns since the last look, the next turn (before its
 * pipeline reads the workspace) rewrites the settled blocks so `history.md`, the knowledge files
 * and `proposals.md` hold the kept step's settlement only, an edited reply's settlement (the
 * continuity worker reads the edited text once; it is recorded as `agent-rp/story-resettled`), and
 * nothing for removed turns. Whether anything changed is read from the latest chat-control events
 * (keyed lookups, no log scan); only then is the log read and the workspace written, in one
 * revision. Any failure other than cancellation leaves the record as it was and is reported as
 * `agent-rp/story-degraded` (stage `story/reconcile`); the turn goes on.
 */
@injectable()
export class KeptStepReconciler {
  readonly #trees: TreeStore;
  readonly #settings: StorySettings;

  /**
   * @param trees - where workspaces live
   * @param settings - the stage prompt budget (for an edited reply's continuity call)
   */
  constructor(@inject(StoryTokens.WorkspaceStore) trees: TreeStore, @inject(StoryTokens.Settings) settings: StorySettings) {
    this.#trees = trees;
    this.#settings = settings;
  }

  /**
   * Runs at the start of a turn (before the draft is prepared).
   * @param ctx - the turn context
   * @param workspaceId - the session's selected workspace, read once by the caller for both steps
   */
  async reconcile(ctx: TurnContext, workspaceId: string): Promise<void> {
    const through = await latestControls(ctx);
    if (Object.keys(through).length === 0) return;
    const seen = ReconciledSchema.safeParse((await ctx.events.findLatest({ type: STORY_EVENTS.reconciled, key: workspaceId }))?.data);
    if (seen.success && CONTROL_TYPES.every((type) => seen.data.through[type] === through[type])) return;
    const emit = storyEmitter(ctx);
    try {
      const turns = await this.#rewrite(ctx, workspaceId, emit);
      emit(STORY_EVENTS.reconciled, { workspaceId, through, ...turns }, workspaceId);
    } catch (error) {
      if (ctx.signal.aborted) throw abortReason(ctx.signal);
      const described = describeError(error);
      emit(STORY_EVENTS.degraded, { stage: 'story/reconcile', workspaceId, fallback: 'record-unchanged', error: { code: described.code ?? 'STORY_RECONCILE_FAILED', message: described.message } });
    }
  }

  async #rewrite(ctx: TurnContext, workspaceId: string, emit: ReturnType<typeof storyEmitter>): Promise<{ turns: string[]; applied: boolean; revision: number }> {
    const plans = planKeptSteps(await ctx.events.read(), workspaceId, ctx.turnId);
    const rewrites: BlockRewrite[] = [];
    let snapshot: Awaited<ReturnType<TreeStore['read']>> | undefined;
    for (const plan of plans) {
      let desired: SettleBlock | undefined;
      if (plan.desired.kind === 'block') desired = plan.desired.block;
      else if (plan.desired.kind === 'resettle') {
        // An edited reply: the continuity worker reads the text the player now sees.
        snapshot ??= await this.#trees.read(workspaceId);
        const manifest = parseManifestForTurn(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
        const env = stageEnvironment(ctx, manifest, Number.POSITIVE_INFINITY, (type, data) => emit(type, data), this.#settings.stagePrompt);
        const { request } = plan.desired;
        const { appends, mode } = await continuityAppends(env, manifest, snapshot.files, request.reply);
        desired = { marker: request.marker, appends };
        emit(STORY_EVENTS.resettled, { workspaceId, turnId: request.turnId, step: request.step, editId: request.editId, marker: request.marker, appends, mode }, request.marker);
      }
      rewrites.push({ candidates: plan.candidates, desired });
    }
    const result = rewrites.length === 0 ? { applied: false, revision: -1 } : await commitBlockRewrites(this.#trees, workspaceId, rewrites);
    return { turns: plans.map((plan) => plan.turnId), ...result };
  }
}

// The id of the session's latest event of each chat-control kind (found by key, not by a scan).
async function latestControls(ctx: TurnContext): Promise<Record<string, string>> {
  const through: Record<string, string> = {};
  for (const type of CONTROL_TYPES) {
    const event = await ctx.events.findLatest({ type, key: CHAT_CONTROL_EVENTS.key });
    if (event) through[type] = event.id;
  }
  return through;
}
