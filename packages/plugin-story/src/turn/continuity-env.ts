import type { ChatModel, TurnContext } from '@troupe/kernel';
import type { StagePromptSettings } from '../budget/stage-budget.js';
import type { StageEnvironment } from '../pipeline/stage-call.js';
import { DEFAULT_PREPARATION_DEADLINE_MS, DEFAULT_STAGE_TIMEOUT_MS, type StoryManifest } from '../workspace/manifest.js';
import { stageEnvironment } from './stage-env.js';

/** The continuity stage's environment, or why the stage cannot run at all this turn. */
export interface ContinuityEnvironment {
  readonly env: StageEnvironment;
  /** Set when the continuity worker cannot be called (broken manifest, unknown pipeline model): settle the reply only. */
  readonly unavailable?: unknown;
}

/**
 * The environment continuity runs in after the reply (no preparation deadline). It never throws:
 * a committed turn always settles, so a manifest that cannot be parsed or a pipeline model the
 * registry does not know is returned as `unavailable`, with an environment that still carries the
 * turn's identity, signal and event sink (its model is never called).
 * @param ctx - the turn context
 * @param manifest - the workspace manifest, or the error that kept it from being parsed
 * @param emit - where stage events go
 * @param stagePrompt - the plugin's stage budget settings
 */
export function continuityEnvironment(ctx: TurnContext, manifest: StoryManifest | { readonly error: unknown }, emit: StageEnvironment['emit'], stagePrompt?: StagePromptSettings): ContinuityEnvironment {
  let unavailable: unknown = 'error' in manifest ? manifest.error : undefined;
  if (!('error' in manifest)) {
    try {
      return { env: stageEnvironment(ctx, manifest, Number.POSITIVE_INFINITY, emit, stagePrompt) };
    } catch (error) {
      unavailable = error;
    }
  }
  const model: ChatModel = { id: 'unavailable', generate: () => Promise.reject(unavailable) };
  const deadlines = { stageTimeoutMs: DEFAULT_STAGE_TIMEOUT_MS, deadlineAt: Number.POSITIVE_INFINITY, deadlineMs: DEFAULT_PREPARATION_DEADLINE_MS };
  return { env: { model, signal: ctx.signal, sessionId: ctx.sessionId, turnId: ctx.turnId, emit, clock: ctx.clock, ...deadlines }, unavailable };
}
