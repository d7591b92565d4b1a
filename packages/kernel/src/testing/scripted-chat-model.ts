import { abortReason } from '../abort.js';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamPart } from '../ports/chat-model.js';

/** One scripted answer: a response, plain text, or a function of the request. */
export type ScriptedAnswer = ChatResponse | string | ((request: ChatRequest) => ChatResponse | string | Promise<ChatResponse | string>);

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions {
  /** Answers per stage (`actor`, `director`, …), used in order; the last one repeats. */
  readonly byStage?: Readonly<Record<string, readonly ScriptedAnswer[]>>;
  /** Answer when a stage has no script (default: echoes the last user message as `echo: …`). */
  readonly fallback?: ScriptedAnswer;
  /** Offer `stream()` (default true); streamed text arrives in chunks of this many characters. */
  readonly streamChunkSize?: number | false;
  readonly id?: string;
}

/**
 * A deterministic {@link ChatModel} for tests: scripted answers per stage, and a record of every
 * request (`calls`) so tests can assert exactly what a stage was sent.
 */
export class ScriptedChatModel implements ChatModel {
  readonly id: string;
  /** Every request, in call order. */
  readonly calls: ChatRequest[] = [];
  readonly #byStage: Map<string, { answers: readonly ScriptedAnswer[]; next: number }>;
  readonly #fallback: ScriptedAnswer;
  readonly #chunk: number | false;

  /** @param options - scripts, fallback, streaming */
  constructor(options: ScriptedChatModelOptions = {}) {
    this.id = options.id ?? 'scripted';
    this.#byStage = new Map(Object.entries(options.byStage ?? {}).map(([stage, answers]) => [stage, { answers, next: 0 }]));
    this.#fallback = options.fallback ?? ((request) => `echo: ${lastUserMessage(request)}`);
    this.#chunk = options.streamChunkSize ?? 8;
    if (this.#chunk === false) (this as { stream?: unknown }).stream = undefined;
  }

  /** Requests made for one stage. */
  callsFor(stage: string): ChatRequest[] {
    return this.calls.filter((request) => request.meta.stage === stage);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal.aborted) throw abortReason(request.signal);
    this.calls.push(request);
    const answer = await this.#answerFor(request);
    if (request.signal.aborted) throw abortReason(request.signal);
    return answer;
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    const response = await this.generate(request);
    if (response.reasoning) yield { type: 'reasoning-delta', text: response.reasoning };
    const size = this.#chunk === false ? response.text.length : Math.max(1, this.#chunk);
    for (let offset = 0; offset < response.text.length; offset += size) {
      if (request.signal.aborted) throw abortReason(request.signal);
      yield { type: 'text-delta', text: response.text.slice(offset, offset + size) };
    }
    yield { type: 'finish', response };
  }

  async #answerFor(request: ChatRequest): Promise<ChatResponse> {
    const script = this.#byStage.get(request.meta.stage);
    let answer = this.#fallback;
    if (script && script.answers.length > 0) {
      answer = script.answers[Math.min(script.next, script.answers.length - 1)] as ScriptedAnswer;
      script.next += 1;
    }
    const value = typeof answer === 'function' ? await answer(request) : answer;
    return typeof value === 'string' ? { text: value, usage: { inputTokens: 0, outputTokens: 0 } } : value;
  }
}

/** The content of the last `user` message of a request ('' when none). */
export function lastUserMessage(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}
