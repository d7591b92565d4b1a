import type { CommittingTurn, TreeSettlement, TreeSnapshot, TreeStore, TurnContext } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import * as z from 'zod';
import { STORY_EVENTS, settleMarker } from '../events.js';
import { type EarlierSettlement, settleTurn } from '../pipeline/settle-turn.js';
import type { StorySettings } from '../plugin-config.js';
import type { SourceIndexCache } from '../retrieval/source-index-cache.js';
import { StoryTokens } from '../story-tokens.js';
import { WORKSPACE_FILES } from '../workspace/layout.js';
import type { StoryManifest } from '../workspace/manifest.js';
import { parseManifestForTurn } from '../workspace/manifest-memo.js';
import { continuityEnvironment } from './continuity-env.js';
import { storyEmitter, turnWorkspaceKey } from './stage-env.js';

const TurnWorkspaceSchema = z.object({ workspaceId: z.string() });

const SettledSchema = z.object({ marker: z.string(), appends: z.record(z.string(), z.string()) });

/**
 * The plugin's `postReview` step: settles the reply the player saw into the turn's workspace once
 * per step (a retried step finds its settle marker and writes nothing); a regenerated step
 * replaces what earlier steps of the turn settled.
 */
@injectable()
export class StoryReplySettler {
  readonly #trees: TreeStore;
  readonly #settings: StorySettings;
  readonly #indexes: SourceIndexCache;

  /**
   * @param trees - where workspaces live
   * @param settings - the plugin settings (stage budget)
   * @param indexes - search indexes per workspace (told what a settlement appended)
   */
  constructor(
    @inject(StoryTokens.WorkspaceStore) trees: TreeStore,
    @inject(StoryTokens.Settings) settings: StorySettings,
    @inject(StoryTokens.SourceIndexCache) indexes: SourceIndexCache,
  ) {
    this.#trees = trees;
    this.#settings = settings;
    this.#indexes = indexes;
  }

  /**
   * Runs for a committed turn from the moment its reply is final (registered `duringCommit`): the
   * continuity call overlaps the storing of the commit, and the workspace is written only once the
   * commit is stored. What it reads from the session log before then (the turn's workspace record,
   * an earlier attempt's settlement) was written before this commit.
   * @param turn - the turn being committed (or finished later from the log)
   * @param ctx - the turn context
   */
  async postReview(turn: CommittingTurn, ctx: TurnContext): Promise<void> {
    const marker = settleMarker(turn.turnId, turn.step);
    // A turn finished later from the log (resumed) has no context values: read its record.
    const selected = ctx.get(turnWorkspaceKey) ?? TurnWorkspaceSchema.safeParse((await ctx.events.findLatest({ type: STORY_EVENTS.turnWorkspace, key: marker }))?.data).data;
    if (!selected) return;
    const { workspaceId } = selected;
    const emit = storyEmitter(ctx);
    if (await ctx.events.findLatest({ type: STORY_EVENTS.settled, key: marker })) return;
    const snapshot = await this.#currentSnapshot(workspaceId, ctx.get(turnWorkspaceKey)?.snapshot);
    // A broken manifest or an unknown pipeline model keeps the continuity worker from running, not
    // the settlement: the reply still goes to history.md (the seed's fallback), like a failed call.
    let manifest: StoryManifest | { readonly error: unknown };
    try {
      manifest = parseManifestForTurn(snapshot.files[WORKSPACE_FILES.manifest] ?? '');
    } catch (error) {
      manifest = { error };
    }
    // Continuity runs after the reply: only the per-stage timeout bounds it.
    const { env, unavailable } = continuityEnvironment(ctx, manifest, (type, data) => emit(type, data), this.#settings.stagePrompt);
    // A first step (nearly every turn) has no earlier settlements to look up.
    const earlier = turn.step > 0 ? await earlierSettlements(ctx, turn.turnId, turn.step) : [];
    const onAppended = (settlement: TreeSettlement, revision: number) => this.#indexes.settled(workspaceId, settlement, revision);
    // Nothing lasting before the commit is stored: it may still fail.
    const result = await settleTurn({
      env,
      trees: this.#trees,
      workspaceId,
      manifest: 'error' in manifest ? undefined : manifest,
      unavailable,
      files: snapshot.files,
      reply: turn.reply,
      step: turn.step,
      earlier,
      writable: turn.stored,
      onAppended,
    });
    emit(STORY_EVENTS.settled, { workspaceId, ...result }, marker);
  }

  /**
   * The workspace as it is now: the snapshot preActor read when the store says the workspace is
   * still at its revision (a stat/signature check, no file read), else a fresh read — a player
   * who saved a file during the turn is seen.
   */
  async #currentSnapshot(workspaceId: string, known: TreeSnapshot | undefined): Promise<TreeSnapshot> {
    if (known?.treeId === workspaceId && this.#trees.currentRevision && (await this.#trees.currentRevision(workspaceId)) === known.revision) return known;
    return this.#trees.read(workspaceId);
  }
}

// What earlier steps of this turn settled (newest settlement per step), so a regenerated step
// replaces their blocks instead of adding a second record of the same turn.
async function earlierSettlements(ctx: TurnContext, turnId: string, step: number): Promise<EarlierSettlement[]> {
  const earlier: EarlierSettlement[] = [];
  for (let previous = 0; previous < step; previous++) {
    const event = await ctx.events.findLatest({ type: STORY_EVENTS.settled, key: settleMarker(turnId, previous) });
    const parsed = SettledSchema.safeParse(event?.data);
    if (parsed.success) earlier.push(parsed.data);
  }
  return earlier;
}
