import { type ChatModel, defineContextKey, type TreeSnapshot, type TurnContext } from '@troupe/kernel';
import { modelStageBudget, type StagePromptSettings } from '../budget/stage-budget.js';
import type { StageEnvironment } from '../pipeline/stage-call.js';
import type { StoryManifest } from '../workspace/manifest.js';

/**
 * What preActor tells postReview about this turn's workspace: which one, and the snapshot it
 * read (postReview reuses it while the workspace is still at that revision).
 */
export const turnWorkspaceKey = defineContextKey<{ readonly workspaceId: string; readonly snapshot?: TreeSnapshot }>('@troupe/plugin-story/turn-workspace');

/**
 * Appends an ignorable story event to the turn.
 * @param ctx - the turn context
 */
export function storyEmitter(ctx: TurnContext): (type: string, data: unknown, key?: string) => void {
  // Nearly every story event has no key (two dozen stage requests and results per turn): they
  // share one options object instead of spreading a fresh one each.
  return (type, data, key) => ctx.events.append(type, data, key ? { ignorable: true, key } : IGNORABLE);
}

const IGNORABLE = Object.freeze({ ignorable: true });

/**
 * The model the workspace's pipeline settings pick (the session's model by default).
 * @param ctx - the turn context
 * @param manifest - the workspace manifest
 */
export function pipelineModel(ctx: TurnContext, manifest: StoryManifest): ChatModel {
  const { provider, model } = manifest.pipeline;
  return provider === undefined && model === undefined ? ctx.models.resolve() : ctx.models.resolve({ ...(provider ? { provider } : {}), ...(model ? { model } : {}) });
}

/**
 * The environment every stage call of this turn shares.
 * @param ctx - the turn context
 * @param manifest - the workspace manifest (model, timeouts)
 * @param deadlineAt - when preparation must be done (`Infinity` after the reply)
 * @param emit - where stage events go
 * @param stagePrompt - the plugin's stage budget settings
 */
export function stageEnvironment(ctx: TurnContext, manifest: StoryManifest, deadlineAt: number, emit: StageEnvironment['emit'], stagePrompt?: StagePromptSettings): StageEnvironment {
  const { stageTimeoutMs, deadlineMs } = manifest.pipeline;
  const model = pipelineModel(ctx, manifest);
  const budget = modelStageBudget(model, stagePrompt);
  return { model, signal: ctx.signal, sessionId: ctx.sessionId, turnId: ctx.turnId, emit, clock: ctx.clock, stageTimeoutMs, deadlineAt, deadlineMs, budget };
}
