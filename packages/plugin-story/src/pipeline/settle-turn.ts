import { abortReason, describeError } from '@troupe/kernel/util';
import { KernelStorageError, type TreeStore } from '@troupe/kernel';
import { STORY_EVENTS, settleMarker } from '../events.js';
import { type ContinuityResult, runContinuity } from '../stages/continuity.js';
import { knowledgePath, WORKSPACE_FILES } from '../workspace/layout.js';
import type { StoryManifest } from '../workspace/manifest.js';
import type { StageEnvironment } from './stage-call.js';

/** The outcome recorded in `agent-rp/story-settled`. */
export interface TurnSettlement {
  readonly marker: string;
  readonly applied: boolean;
  readonly revision: number;
  /** `full`: the continuity result; `reply-only`: continuity failed, only the reply went to history. */
  readonly mode: 'full' | 'reply-only';
  readonly files: readonly string[];
}

/**
 * Runs the continuity worker on the final visible reply and settles the result into the workspace
 * with a stable per-turn marker (rebased on the latest revision; a retry never duplicates).
 * Unparseable output → only the reply is appended to `history.md`; no observation or proposal
 * is guessed. `outline.md` and `foreshadowing.md` are never written.
 * @param options - the turn's environment, the tree store, the workspace id, its manifest and files
 *   (read at settlement time), and the final visible reply
 * @returns what was settled (`applied: false` when a retry found the marker already settled)
 * @throws the abort reason when cancelled; `KernelStorageError` storage errors other than
 *   TREE_SETTLE_CONFLICT (which means an earlier attempt already settled this turn)
 */
export async function settleTurn(options: {
  readonly env: StageEnvironment;
  readonly trees: TreeStore;
  readonly workspaceId: string;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
  readonly reply: string;
}): Promise<TurnSettlement> {
  const { env, manifest, files, reply } = options;
  const marker = settleMarker(env.turnId);
  const participants = manifest.characters.filter((c) => c.enabled).map((c) => ({ id: c.id, name: c.name }));
  let appends: Record<string, string>;
  let mode: TurnSettlement['mode'] = 'full';
  try {
    const result = await runContinuity(env, {
      visibleReply: reply,
      outline: files[WORKSPACE_FILES.outline] ?? '',
      foreshadowing: files[WORKSPACE_FILES.foreshadowing] ?? '',
      participants,
    });
    appends = appendsFor(result, new Set(participants.map((p) => p.id)));
  } catch (error) {
    if (env.signal.aborted) throw abortReason(env.signal);
    const described = describeError(error);
    env.emit(STORY_EVENTS.degraded, { stage: 'story/continuity', fallback: 'reply-only', error: { code: described.code ?? 'STORY_STAGE_OUTPUT_INVALID', message: described.message } });
    appends = { [WORKSPACE_FILES.history]: reply };
    mode = 'reply-only';
  }
  if (Object.keys(appends).length === 0) {
    return { marker, applied: false, revision: -1, mode, files: [] };
  }
  if (env.signal.aborted) throw abortReason(env.signal);
  try {
    const result = await options.trees.settle(options.workspaceId, { marker, appends });
    return { marker, applied: result.applied, revision: result.revision, mode, files: Object.keys(appends).sort() };
  } catch (error) {
    // Same marker, other content: an earlier attempt of this turn already settled. Keep that one.
    if (KernelStorageError.isInstance(error) && error.code === 'TREE_SETTLE_CONFLICT') {
      return { marker, applied: false, revision: -1, mode, files: [] };
    }
    throw error;
  }
}

function bullets(lines: readonly string[]): string {
  return lines.map((line) => `- ${line.replace(/\s*\n\s*/g, ' ')}`).join('\n');
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
