import type { ChatResponse, ChatUsage, ToolCall } from '@troupe/kernel';
import { fromWireFinishReason, parseToolArguments } from './to-wire.js';
import type { WireChunk, WireUsageValue } from './wire-schemas.js';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Collects streamed chunks into one {@link ChatResponse}: concatenates text, assembles tool calls
 * from their indexed fragments, keeps the finish reason and the (usually last) usage chunk.
 */
export class StreamAccumulator {
  #text = '';
  #finishReason: string | undefined;
  #usage: ChatUsage | undefined;
  readonly #toolCalls = new Map<number, PartialToolCall>();

  /** True once a chunk carried a finish reason (a stream without one was cut off). */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /**
   * Adds one chunk.
   * @param chunk - a validated chunk
   * @returns the text this chunk added ('' when none)
   */
  add(chunk: WireChunk): string {
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    let added = '';
    for (const choice of chunk.choices) {
      // Only the first choice is used; n > 1 is never requested.
      if ((choice.index ?? 0) !== 0) continue;
      const content = choice.delta?.content;
      if (content) {
        this.#text += content;
        added += content;
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        const call = this.#toolCalls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        this.#toolCalls.set(fragment.index, call);
      }
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    }
    return added;
  }

  /** The complete response. */
  response(): ChatResponse {
    const toolCalls: ToolCall[] = [...this.#toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: parseToolArguments(call.arguments) }));
    const finishReason = fromWireFinishReason(this.#finishReason);
    return {
      text: this.#text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...(finishReason ? { finishReason } : {}),
    };
  }
}

/**
 * Converts wire usage to the kernel's shape, dropping absent numbers.
 * @param usage - `usage` as the server sent it
 */
export function toUsage(usage: NonNullable<WireUsageValue>): ChatUsage {
  return {
    ...(typeof usage.prompt_tokens === 'number' ? { inputTokens: usage.prompt_tokens } : {}),
    ...(typeof usage.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
  };
}
