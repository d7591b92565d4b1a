import { abortReason } from '../abort.js';
import { describeError } from '../errors.js';
import type { ChatMessage, ChatResponse } from '../ports/chat-model.js';
import { type DirectorRun, executeDirectorCall } from './director-round.js';
import { DECISION_OUTPUT, decisionInstructions, decisionResultMessage, parseDecision } from './json-decision.js';
import { toolRejectionStatus } from './tool-support.js';

/** Event queued when the director's tools could not be offered at all this turn. */
export const DIRECTOR_TOOLS_UNAVAILABLE = 'kernel/director-tools-unavailable';

// Structured output first; a server that refuses `response_format` gets the same request as plain
// text (the instructions already ask for JSON, and the parser finds it in prose).
async function decide(run: DirectorRun, messages: readonly ChatMessage[]): Promise<ChatResponse> {
  const { sessionId, turnId } = run.state.init;
  const signal = run.state.signal;
  const request = { messages, signal, meta: { stage: 'director', sessionId, turnId } } as const;
  try {
    return await run.model.generate({ ...request, json: DECISION_OUTPUT });
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    if (toolRejectionStatus(error) === undefined) throw error;
    return run.model.generate(request);
  }
}

/**
 * The director for models that cannot take tools: each round asks for one JSON decision
 * (`{"tool": name, "arguments": {…}}` or `{"tool": null}`), runs it through the same executor as
 * tool calls and tells the model the outcome, for at most `maxRounds` rounds. When no decision can
 * be had (the model fails, or never answers a valid decision), `kernel/director-tools-unavailable`
 * says so: the tools were not offered this turn. Cancellation propagates.
 * @param run - the director turn
 */
export async function runJsonDirector(run: DirectorRun): Promise<void> {
  const { state, tools, maxRounds } = run;
  const signal = state.signal;
  const unavailable = (reason: 'model-failed' | 'decision-invalid', detail: Record<string, unknown>) =>
    state.queue(DIRECTOR_TOOLS_UNAVAILABLE, { reason, model: run.model.id, tools: tools.map((tool) => tool.name), ...detail });
  const messages: ChatMessage[] = [{ role: 'system', content: `${run.systemPrompt}\n\n${decisionInstructions(tools)}` }, ...run.conversation];
  let lastProblem = '';
  let decided = false;
  for (let round = 0; round < maxRounds; round++) {
    let response: ChatResponse;
    try {
      response = await decide(run, [...messages]);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      run.loggers.kernel.warn('director JSON decision failed', { error: describeError(error) });
      unavailable('model-failed', { round, error: describeError(error) });
      return;
    }
    const parsed = parseDecision(response.text);
    messages.push({ role: 'assistant', content: response.text });
    if (!parsed.ok) {
      lastProblem = parsed.problem;
      messages.push({ role: 'user', content: `That was not a valid decision (${parsed.problem}). Answer with exactly one JSON object: {"tool": "<tool name>", "arguments": {…}} or {"tool": null}.` });
      continue;
    }
    decided = true;
    if (parsed.decision.tool === null) return;
    const outcome = await executeDirectorCall(run, { id: `json_${round}`, name: parsed.decision.tool, arguments: parsed.decision.arguments }, round);
    messages.push({ role: 'user', content: decisionResultMessage(parsed.decision.tool, outcome) });
  }
  if (decided) state.queue('kernel/director-rounds-exhausted', { maxRounds });
  else unavailable('decision-invalid', { problem: lastProblem });
}
