import type { ChatResponse, ChatUsage, ToolCall } from '@troupe/kernel';
import { InlineReasoningSplitter, type ReasoningSplit } from './inline-reasoning.js';
import { fromWireFinishReason, parseToolArguments } from './to-wire.js';
import { reasoningText, type WireChunk, type WireUsageValue } from './wire-schemas.js';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** How the accumulator reads content. */
export interface AccumulatorOptions {
  /** Split inline `<think>` blocks out of the content (false: content as sent). */
  readonly thinkTags: boolean;
  /** The model's answers start inside reasoning (its template opens `<think>`). */
  readonly startsInReasoning: boolean;
}

/**
 * Collects streamed chunks into one {@link ChatResponse}: visible text and reasoning apart
 * (reasoning fields and inline `<think>` blocks), tool calls assembled from their indexed
 * fragments, the finish reason (`""` counts as none) and the usage chunk (which may come alone,
 * with `choices: []`).
 */
export class StreamAccumulator {
  #fieldReasoning = '';
  #finishReason: string | undefined;
  #usage: ChatUsage | undefined;
  readonly #toolCalls = new Map<number, PartialToolCall>();
  readonly #splitter: InlineReasoningSplitter | undefined;
  #plainText = '';
  #ended = false;

  /** @param options - how to read content (default: split think tags, answers start as text) */
  constructor(options: AccumulatorOptions = { thinkTags: true, startsInReasoning: false }) {
    this.#splitter = options.thinkTags ? new InlineReasoningSplitter(options.startsInReasoning) : undefined;
  }

  /** True once a chunk carried a finish reason. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** True when the server's content filter ended the stream (`finish_reason: content_filter`). */
  get filtered(): boolean {
    return this.#finishReason === 'content_filter';
  }

  /** True when content, reasoning or a tool call arrived (a stream without them said nothing). */
  get received(): boolean {
    return this.#toolCalls.size > 0 || this.#text() !== '' || this.#reasoning() !== '';
  }

  /** True when the content closed a `</think>` it never opened (see {@link InlineReasoningSplitter}). */
  get sawBareClose(): boolean {
    return this.#splitter?.sawBareClose ?? false;
  }

  /**
   * Adds one chunk.
   * @param chunk - a validated chunk
   * @returns the visible text and reasoning this chunk released
   */
  add(chunk: WireChunk): ReasoningSplit {
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    let text = '';
    let reasoning = '';
    for (const choice of chunk.choices) {
      // Only the first choice is used; n > 1 is never requested.
      if ((choice.index ?? 0) !== 0) continue;
      const field = reasoningText(choice.delta?.reasoning_content) || reasoningText(choice.delta?.reasoning);
      if (field) {
        this.#fieldReasoning += field;
        reasoning += field;
      }
      const content = choice.delta?.content;
      if (content) {
        const released = this.#pushContent(content);
        text += released.text;
        reasoning += released.reasoning;
      }
      for (const fragment of choice.delta?.tool_calls ?? []) {
        const call = this.#toolCalls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        this.#toolCalls.set(fragment.index, call);
      }
      const finish = fromWireFinishReason(choice.finish_reason);
      if (finish) this.#finishReason = choice.finish_reason ?? undefined;
    }
    return { text, reasoning };
  }

  /**
   * Ends the stream: releases content held back while it might have been a tag.
   * @returns the last visible text and reasoning
   */
  end(): ReasoningSplit {
    if (this.#ended || !this.#splitter) return { text: '', reasoning: '' };
    this.#ended = true;
    return this.#splitter.end();
  }

  /** The complete response (call {@link end} first). */
  response(): ChatResponse {
    const toolCalls: ToolCall[] = [...this.#toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: parseToolArguments(call.arguments) }));
    const finishReason = fromWireFinishReason(this.#finishReason);
    const reasoning = this.#reasoning();
    return {
      text: this.#text(),
      ...(reasoning ? { reasoning } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...(finishReason ? { finishReason } : {}),
    };
  }

  #pushContent(content: string): ReasoningSplit {
    if (!this.#splitter) {
      this.#plainText += content;
      return { text: content, reasoning: '' };
    }
    return this.#splitter.push(content);
  }

  #text(): string {
    return this.#splitter ? this.#splitter.text : this.#plainText;
  }

  #reasoning(): string {
    const inline = this.#splitter?.reasoning ?? '';
    return this.#fieldReasoning && inline ? `${this.#fieldReasoning}\n${inline}` : this.#fieldReasoning || inline;
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
