import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from '../ports/chat-model.js';
import type { Logger } from '../ports/logger.js';
import type { TurnState } from '../turn/turn-state.js';
import type { ToolCallOutcome } from './director-tool.js';
import type { ToolExecutor } from './tool-executor.js';

/** Loggers the director writes to. */
export interface DirectorLoggers {
  readonly kernel: Logger;
  forPlugin(plugin: string): Logger;
}

/** What one director turn works with, whichever way the model decides (tool calls or JSON). */
export interface DirectorRun {
  readonly state: TurnState;
  readonly executor: ToolExecutor;
  readonly model: ChatModel;
  readonly tools: readonly ToolSpec[];
  /** The control prompt (the settings' or the default). */
  readonly systemPrompt: string;
  /** The earlier messages the control model sees, then the player's input. */
  readonly conversation: readonly ChatMessage[];
  readonly maxRounds: number;
  /** Once-per-turn tools already called successfully, shared by both ways of deciding. */
  readonly calledOnce: Set<string>;
  readonly loggers: DirectorLoggers;
}

/**
 * Checks and runs one call through the executor and records it — the same checks (available in
 * this scenario, parameters valid, once per turn) and the same `kernel/tool-called` event whether
 * the model made a tool call or wrote a JSON decision.
 * @param run - the director turn
 * @param call - the call
 * @param round - the round, for the event
 * @returns the outcome to tell the model
 */
export async function executeDirectorCall(run: DirectorRun, call: ToolCall, round: number): Promise<ToolCallOutcome> {
  const { state, executor, loggers } = run;
  const owner = executor.ownerOf(call.name) ?? '@troupe/kernel';
  const ctx = state.contextFor(owner, state.signal, loggers.forPlugin(owner));
  const outcome = await executor.execute(call, state.init.scenario.tools, run.calledOnce, ctx);
  state.queue('kernel/tool-called', { round, tool: call.name, ok: outcome.ok, ...(outcome.ok ? {} : { error: outcome.error }) });
  return outcome;
}
