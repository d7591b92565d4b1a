import { abortReason } from '../abort.js';
import { describeError } from '../errors.js';
import type { ChatMessage, ChatModel, ChatResponse, ModelRegistry } from '../ports/chat-model.js';
import type { TurnState } from '../turn/turn-state.js';
import { type DirectorLoggers, type DirectorRun, executeDirectorCall } from './director-round.js';
import { runJsonDirector } from './json-director.js';
import { isLastingToolRefusal, knownToolSupport, rememberToolSupport, type ToolSupport, toolRejectionStatus } from './tool-support.js';
import type { ToolExecutor } from './tool-executor.js';

/** Settings of the pre-actor director. */
export interface DirectorSettings {
  /** The control model's system prompt. */
  readonly systemPrompt?: string;
  /** Most model rounds per turn (default 4). */
  readonly maxRounds?: number;
  /** How many earlier messages the control model sees (default 12). */
  readonly historyMessages?: number;
}

/** The default control prompt: act only on explicit, lasting requests. */
export const DEFAULT_DIRECTOR_PROMPT = [
  'You are the director of a roleplay conversation. You never speak to the player.',
  "Decide whether the player's latest message needs one of your tools.",
  'Only call a tool when the message clearly asks for it; for example, use a tool that records a',
  'lasting requirement only when the player explicitly asks for a change that should hold from now on.',
  'If no tool is needed, answer with the single word: none.',
].join('\n');

/** Event queued when the director asks for JSON decisions instead of tool calls (`{reason, model, status?}`). */
export const DIRECTOR_JSON_FALLBACK = 'kernel/director-json-fallback';

// A server that drops `tools` leaves the model to answer in text; naming one of the tools there
// (instead of `none`) is the model asking for a tool it could not call.
function namesATool(response: ChatResponse, run: DirectorRun): boolean {
  return run.tools.some((tool) => new RegExp(`\\b${tool.name}\\b`).test(response.text));
}

/** Tool rounds; returns why to switch to JSON decisions when the first round shows tools do not work. */
async function runToolRounds(run: DirectorRun): Promise<ToolSupport | undefined> {
  const { state, model, tools, maxRounds } = run;
  const { sessionId, turnId } = state.init;
  const signal = state.signal;
  // The tools are named in the prompt too: if the server drops `tools`, the model still knows them
  // and says which it wanted, which is how an ignoring server is recognised.
  const toolList = `Your tools: ${tools.map((tool) => `${tool.name} (${tool.description})`).join('; ')}.`;
  const messages: ChatMessage[] = [{ role: 'system', content: `${run.systemPrompt}\n${toolList}` }, ...run.conversation];
  for (let round = 0; round < maxRounds; round++) {
    let response: ChatResponse;
    try {
      response = await model.generate({ messages, tools, signal, meta: { stage: 'director', sessionId, turnId } });
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      const status = round === 0 ? toolRejectionStatus(error) : undefined;
      if (status !== undefined) {
        run.loggers.kernel.warn('director model rejected tools; asking for a JSON decision', { status, error: describeError(error) });
        return { reason: 'rejected', status, lasting: isLastingToolRefusal(error) };
      }
      run.loggers.kernel.warn('director degraded', { error: describeError(error) });
      state.queue('kernel/director-degraded', { round, error: describeError(error) });
      return undefined;
    }
    const calls = response.toolCalls ?? [];
    if (calls.length === 0) return round === 0 && namesATool(response, run) ? { reason: 'ignored' } : undefined;
    messages.push({ role: 'assistant', content: response.text, toolCalls: calls });
    for (const call of calls) {
      const outcome = await executeDirectorCall(run, call, round);
      messages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(outcome) });
    }
  }
  state.queue('kernel/director-rounds-exhausted', { maxRounds });
  return undefined;
}

/**
 * Runs the control model before the `preActor` handlers: offers the enabled tools, executes the
 * calls through the checked executor and feeds results back, for a bounded number of rounds. A
 * model that cannot take tools — it says so (`capabilities.tools === false`), its server answers
 * the `tools` request with 400/422/500/501, or its server ignores `tools` (the model names a tool
 * in plain text) — is asked for JSON decisions instead, checked and recorded the same way
 * (`kernel/director-json-fallback` says which and why); a refusal that says it is about tools is remembered for later turns.
 * Either way the tools read the player's raw input from the turn. A model failure degrades
 * (`kernel/director-degraded`, or `kernel/director-tools-unavailable` when even a JSON decision
 * cannot be had); cancellation propagates.
 */
export async function runDirector(state: TurnState, executor: ToolExecutor, models: ModelRegistry, settings: DirectorSettings, loggers: DirectorLoggers): Promise<void> {
  const { scenario, history, input } = state.init;
  const signal = state.signal;
  let model: ChatModel;
  try {
    model = models.resolve(scenario.directorModel);
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    loggers.kernel.warn('director degraded', { error: describeError(error) });
    state.queue('kernel/director-degraded', { round: 0, error: describeError(error) });
    return;
  }
  const run: DirectorRun = {
    state,
    executor,
    model,
    tools: executor.specsFor(scenario.tools),
    systemPrompt: settings.systemPrompt ?? DEFAULT_DIRECTOR_PROMPT,
    conversation: [...history.slice(-(settings.historyMessages ?? 12)), { role: 'user', content: input.text }],
    maxRounds: settings.maxRounds ?? 4,
    calledOnce: new Set<string>(),
    loggers,
  };
  const known = knownToolSupport(model);
  const support = known ?? (await runToolRounds(run));
  if (support === undefined) return;
  // Only a refusal that says it is about tools is remembered: "ignored" is read from one answer's
  // text, and an error that names no tools may pass (a busy GPU), so both are re-checked every
  // turn rather than switching a model that can call tools to JSON for good.
  if (known === undefined && support.reason === 'rejected' && support.lasting === true) rememberToolSupport(model, support);
  state.queue(DIRECTOR_JSON_FALLBACK, { reason: support.reason, model: model.id, ...(support.status ? { status: support.status } : {}) });
  await runJsonDirector(run);
}
