/** Session event types written by the story plugin (all ignorable). */
export const STORY_EVENTS = Object.freeze({
  /** The session's workspace selection; key {@link SELECTION_KEY}; data `{workspaceId: string | null}`. */
  workspaceSelected: 'agent-rp/story-workspace-selected',
  /** The full model request of one stage call. */
  stageRequest: 'agent-rp/story-stage-request',
  /** A stage's text, or its stable failure. */
  stageResult: 'agent-rp/story-stage-result',
  /** The outcome of web retrieval (results, or the failure that removed them). */
  webRetrieval: 'agent-rp/story-web-retrieval',
  /** The edited draft handed to the actor; key `${turnId}:${step}:${workspaceId}:${revision}`. */
  draftPrepared: 'agent-rp/story-draft-prepared',
  /** A prepared draft reused from the session log (no model call). */
  draftReplayed: 'agent-rp/story-draft-replayed',
  /** A degradation: which stage, what fell back to what, and why. */
  degraded: 'agent-rp/story-degraded',
  /**
   * The workspace a turn settles into, recorded with its commit; key = the settle marker. Lets a
   * committed turn be settled later from the log (after a crash) exactly like the live turn.
   */
  turnWorkspace: 'agent-rp/story-turn-workspace',
  /** The post-turn settlement; key = the settle marker. */
  settled: 'agent-rp/story-settled',
  /** The pipeline did not run this turn. */
  skipped: 'agent-rp/story-skipped',
  /**
   * The continuity record was brought in line with the chat's kept steps, edits and removals
   * (swipe, edit, delete); key = the workspace id; data `{workspaceId, through, turns}`.
   */
  reconciled: 'agent-rp/story-reconciled',
  /** An edited reply settled anew (its block replaces the original's); key = its marker. */
  resettled: 'agent-rp/story-resettled',
  /**
   * A branch of the session got its own copy of the workspace (`forkStoryForBranch`); data
   * `{from, to, droppedTurns}`. The settlements recorded for `from` before it are `to`'s from then on.
   */
  workspaceForked: 'agent-rp/story-workspace-forked',
});

/** The lookup key of selection events. */
export const SELECTION_KEY = 'selection';

/**
 * The replay key of a prepared draft: same turn, step, workspace and revision.
 * @param turnId - the turn
 * @param step - the turn's step
 * @param workspaceId - the workspace
 * @param revision - the workspace revision the draft was prepared from
 * @returns `${turnId}:${step}:${workspaceId}:${revision}`
 */
export function draftKey(turnId: string, step: number, workspaceId: string, revision: number): string {
  return `${turnId}:${step}:${workspaceId}:${revision}`;
}

/**
 * The stable settle marker of a turn's step, so a retried step never settles twice: `story:<turnId>`
 * for the first attempt (step 0), `story:<turnId>:<step>` for a regenerated one.
 * @param turnId - the turn
 * @param step - the step (default 0)
 */
export function settleMarker(turnId: string, step = 0): string {
  return step === 0 ? `story:${turnId}` : `story:${turnId}:${step}`;
}
