import { abortReason } from '../abort.js';
import { describeError } from '../errors.js';
import type { ChatMessage, ModelRegistry } from '../ports/chat-model.js';
import type { Logger } from '../ports/logger.js';
import type { TurnState } from '../turn/turn-state.js';
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

/**
 * Runs the control model's tool loop before the `preActor` handlers: offers the enabled tools,
 * executes the calls through the checked executor and feeds results back, for a bounded number
 * of rounds. A model failure degrades (`kernel/director-degraded`); cancellation propagates.
 */
export async function runDirector(
  state: TurnState,
  executor: ToolExecutor,
  models: ModelRegistry,
  settings: DirectorSettings,
  loggers: { readonly kernel: Logger; forPlugin(plugin: string): Logger },
): Promise<void> {
  const { signal, scenario, history, input, sessionId, turnId } = state.init;
  const tools = executor.specsFor(scenario.tools);
  const messages: ChatMessage[] = [
    { role: 'system', content: settings.systemPrompt ?? DEFAULT_DIRECTOR_PROMPT },
    ...history.slice(-(settings.historyMessages ?? 12)),
    { role: 'user', content: input.text },
  ];
  const calledOnce = new Set<string>();
  const maxRounds = settings.maxRounds ?? 4;
  for (let round = 0; round < maxRounds; round++) {
    let response: Awaited<ReturnType<ReturnType<ModelRegistry['resolve']>['generate']>>;
    try {
      const model = models.resolve(scenario.directorModel);
      response = await model.generate({ messages, tools, signal, meta: { stage: 'director', sessionId, turnId } });
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      loggers.kernel.warn('director degraded', { error: describeError(error) });
      state.queue('kernel/director-degraded', { round, error: describeError(error) });
      return;
    }
    const calls = response.toolCalls ?? [];
    if (calls.length === 0) return;
    messages.push({ role: 'assistant', content: response.text, toolCalls: calls });
    for (const call of calls) {
      const owner = executor.ownerOf(call.name) ?? '@troupe/kernel';
      const ctx = state.contextFor(owner, signal, loggers.forPlugin(owner));
      const outcome = await executor.execute(call, scenario.tools, calledOnce, ctx);
      state.queue('kernel/tool-called', {
        round,
        tool: call.name,
        ok: outcome.ok,
        ...(outcome.ok ? {} : { error: outcome.error }),
      });
      messages.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(outcome) });
    }
  }
  state.queue('kernel/director-rounds-exhausted', { maxRounds });
}
