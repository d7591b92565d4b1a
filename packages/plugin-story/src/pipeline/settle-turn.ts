import { abortReason, describeError } from '@troupe/kernel/util';
import { KernelStorageError, type TreeSettlement, type TreeStore } from '@troupe/kernel';
import { appendSettleBlock } from '@troupe/kernel/storage';
import { asLineEnded, blockText, findBlock, replaceBlock } from '../continuity/block-text.js';
import { STORY_EVENTS, settleMarker } from '../events.js';
import { type ContinuityResult, runContinuity } from '../stages/continuity.js';
import { knowledgePath, WORKSPACE_FILES } from '../workspace/layout.js';
import type { StoryManifest } from '../workspace/manifest.js';
import { manifestPlan } from './manifest-plan.js';
import type { StageEnvironment } from './stage-call.js';

/** The outcome recorded in `agent-rp/story-settled`. */
export interface TurnSettlement {
  readonly marker: string;
  readonly applied: boolean;
  readonly revision: number;
  /** `full`: the continuity result; `reply-only`: continuity failed, only the reply went to history. */
  readonly mode: 'full' | 'reply-only';
  readonly files: readonly string[];
  /** The exact text appended per file, so a later step of the turn can replace this block. */
  readonly appends?: Readonly<Record<string, string>>;
  /** Markers of earlier steps of the turn whose blocks this settlement replaced. */
  readonly replaced?: readonly string[];
}

/** An earlier step's settlement of the same turn (from its `agent-rp/story-settled` event). */
export interface EarlierSettlement {
  readonly marker: string;
  readonly appends: Readonly<Record<string, string>>;
}

/** How many times a replacing settlement re-reads the workspace after a concurrent edit. */
const REPLACE_ATTEMPTS = 5;

/**
 * Runs the continuity worker on the final visible reply and settles the result into the workspace
 * with a stable per-turn marker (rebased on the latest revision; a retry never duplicates).
 * Unparseable output → only the reply is appended to `history.md`; no observation or proposal
 * is guessed. `outline.md` and `foreshadowing.md` are never written.
 * A regenerated step (`step ≥ 1`) settles under its own marker and, in the same revision, removes
 * the blocks earlier steps of the turn appended (`earlier`): the continuity record reflects the
 * reply the player kept, never two replies of one turn. Player edits elsewhere in the files are
 * kept (the change is rebased on the latest revision); an earlier block the player edited is
 * theirs and stays.
 * The continuity call may run before the turn's commit is stored: nothing is written before
 * `writable` resolves.
 * @param options - the turn's environment, the tree store, the workspace id, its manifest and files
 *   (read at settlement time), the final visible reply, the step, earlier steps' settlements, and
 *   when writing may start
 * @returns what was settled (`applied: false` when a retry found the marker already settled)
 * @throws the abort reason when cancelled; `KernelStorageError` storage errors other than
 *   TREE_SETTLE_CONFLICT (which means an earlier attempt already settled this turn)
 */
export async function settleTurn(options: {
  readonly env: StageEnvironment;
  readonly trees: TreeStore;
  readonly workspaceId: string;
  /** The workspace manifest; undefined when it could not be parsed (then `unavailable` says why). */
  readonly manifest: StoryManifest | undefined;
  /** Why the continuity worker cannot run (broken manifest, unknown pipeline model): the reply is settled alone. */
  readonly unavailable?: unknown;
  readonly files: Readonly<Record<string, string>>;
  readonly reply: string;
  readonly step?: number;
  readonly earlier?: readonly EarlierSettlement[];
  /** Awaited after the continuity call, before any write (the turn's commit is stored); rejects → nothing is written. */
  readonly writable?: Promise<unknown>;
  /** Told of a settlement the store applied as a plain append (the growing documents' indexes follow it without re-reading). */
  readonly onAppended?: (settlement: TreeSettlement, revision: number) => void;
}): Promise<TurnSettlement> {
  const { env, manifest, files, reply } = options;
  const earlier = options.earlier ?? [];
  const marker = settleMarker(env.turnId, options.step ?? 0);
  const { appends, mode } =
    options.unavailable !== undefined || manifest === undefined ? replyOnlyAppends(env, options.unavailable, reply) : await continuityAppends(env, manifest, files, reply);
  if (options.writable) await options.writable;
  if (Object.keys(appends).length === 0 && earlier.length === 0) {
    return { marker, applied: false, revision: -1, mode, files: [] };
  }
  if (env.signal.aborted) throw abortReason(env.signal);
  if (earlier.length > 0) {
    const result = await replaceEarlierBlocks(options.trees, options.workspaceId, earlier, marker, appends);
    return { marker, applied: result.applied, revision: result.revision, mode, files: Object.keys(appends).sort(), appends, replaced: earlier.map((e) => e.marker) };
  }
  try {
    const result = await options.trees.settle(options.workspaceId, { marker, appends });
    if (result.applied) options.onAppended?.({ marker, appends }, result.revision);
    return { marker, applied: result.applied, revision: result.revision, mode, files: Object.keys(appends).sort(), appends };
  } catch (error) {
    // Same marker, other content: an earlier attempt of this turn already settled. Keep that one.
    if (KernelStorageError.isInstance(error) && error.code === 'TREE_SETTLE_CONFLICT') {
      return { marker, applied: false, revision: -1, mode, files: [] };
    }
    throw error;
  }
}

/**
 * What settling a visible reply appends: the continuity worker's result per file, or — when its
 * output is unusable — only the reply, to `history.md` (a `story-degraded` event says so).
 * @param env - the stage environment
 * @param manifest - the workspace manifest (its enabled characters take part)
 * @param files - the workspace files (outline and foreshadowing are read)
 * @param reply - the visible reply
 * @returns the appends per file and the mode
 * @throws the abort reason when cancelled
 */
export async function continuityAppends(
  env: StageEnvironment,
  manifest: StoryManifest,
  files: Readonly<Record<string, string>>,
  reply: string,
): Promise<{ appends: Record<string, string>; mode: TurnSettlement['mode'] }> {
  const { participants, participantIds } = manifestPlan(manifest);
  try {
    const result = await runContinuity(env, {
      visibleReply: reply,
      outline: files[WORKSPACE_FILES.outline] ?? '',
      foreshadowing: files[WORKSPACE_FILES.foreshadowing] ?? '',
      participants,
    });
    return { appends: appendsFor(result, participantIds), mode: 'full' };
  } catch (error) {
    if (env.signal.aborted) throw abortReason(env.signal);
    return replyOnlyAppends(env, error, reply);
  }
}

/**
 * The seed's fallback when continuity gives nothing usable — its call failed, its output did not
 * parse, or it could not be called at all: only the visible reply goes to `history.md`, nothing
 * is guessed for the characters or the proposals. A `story-degraded` event says why.
 * @param env - the stage environment (its event sink)
 * @param error - why continuity gave nothing
 * @param reply - the visible reply
 * @returns the appends and the mode (never throws)
 */
export function replyOnlyAppends(env: StageEnvironment, error: unknown, reply: string): { appends: Record<string, string>; mode: TurnSettlement['mode'] } {
  const described = describeError(error);
  env.emit(STORY_EVENTS.degraded, { stage: 'story/continuity', fallback: 'reply-only', error: { code: described.code ?? 'STORY_STAGE_OUTPUT_INVALID', message: described.message } });
  return { appends: { [WORKSPACE_FILES.history]: reply }, mode: 'reply-only' };
}

// One revision that removes earlier steps' exact blocks and appends this step's block (unless a
// retry already did), rebased on the latest revision.
async function replaceEarlierBlocks(
  trees: TreeStore,
  workspaceId: string,
  earlier: readonly EarlierSettlement[],
  marker: string,
  appends: Readonly<Record<string, string>>,
): Promise<{ applied: boolean; revision: number }> {
  const paths = new Set([...earlier.flatMap((e) => Object.keys(e.appends)), ...Object.keys(appends)]);
  for (let attempt = 1; ; attempt++) {
    const snapshot = await trees.read(workspaceId);
    const writes: Record<string, string> = {};
    for (const path of paths) {
      const before = snapshot.files[path];
      // Line-ended: a save that dropped the last line break must not hide the last block.
      const base = asLineEnded(before ?? '');
      let content = base;
      for (const step of earlier) {
        const text = step.appends[path];
        if (text !== undefined) content = replaceBlock(content, blockText(step.marker, text), '');
      }
      const text = appends[path];
      if (text !== undefined && findBlock(content, `<!-- troupe:settle ${marker} -->\n`) === undefined) content = appendSettleBlock(content, marker, text);
      if (content !== base && !(before === undefined && content === '')) writes[path] = content;
    }
    if (Object.keys(writes).length === 0) return { applied: false, revision: snapshot.revision };
    try {
      const next = await trees.commit(workspaceId, { baseRevision: snapshot.revision, writes });
      return { applied: true, revision: next.revision };
    } catch (error) {
      // The player saved meanwhile: re-read and apply the replacement to their latest files.
      if (KernelStorageError.isInstance(error) && error.code === 'TREE_REVISION_CONFLICT' && attempt < REPLACE_ATTEMPTS) continue;
      throw error;
    }
  }
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line.includes('\n') ? line.replace(/\s*\n\s*/g, ' ') : line}`).join('\n');
}

// Only enabled participants get observations; unknown ids from the model are dropped.
function appendsFor(result: ContinuityResult, participants: ReadonlySet<string>): Record<string, string> {
  const appends: Record<string, string> = {};
  if (result.publicEvents.length > 0) appends[WORKSPACE_FILES.history] = bullets(result.publicEvents);
  for (const observation of result.observations) {
    if (!participants.has(observation.characterId) || observation.facts.length === 0) continue;
    const path = knowledgePath(observation.characterId);
    appends[path] = appends[path] ? `${appends[path]}\n${bullets(observation.facts)}` : bullets(observation.facts);
  }
  if (result.proposals.length > 0) appends[WORKSPACE_FILES.proposals] = bullets(result.proposals);
  return appends;
}
