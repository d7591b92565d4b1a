/** Who speaks a chat message. `tool` carries a tool result back to the model. */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call requested by a model. `arguments` is the parsed JSON the model produced. */
export interface ToolCall {
  /** Provider-assigned id, echoed on the tool result message. */
  readonly id: string;
  /** Name of the tool the model wants to run. */
  readonly name: string;
  /** Arguments as the model sent them (already JSON-parsed; unvalidated). */
  readonly arguments: unknown;
}

/** One message sent to or received from a chat model. */
export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** Optional speaker name (e.g. a character). */
  readonly name?: string;
  /** For `tool` messages: the call this result answers. */
  readonly toolCallId?: string;
  /** For `assistant` messages that requested tools. */
  readonly toolCalls?: readonly ToolCall[];
}

/** A tool offered to the model: name, description and a JSON Schema for its parameters. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12 subset) of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** Identifies who is calling a model, for routing, usage accounting and simulation. */
export interface ChatRequestMeta {
  /** The pipeline stage: `actor`, `director`, `story/character`, … */
  readonly stage: string;
  readonly sessionId: string;
  readonly turnId: string;
}

/** Ask the model for JSON output, optionally constrained by a JSON Schema. */
export interface JsonOutputRequest {
  /** JSON Schema the output must follow, when the provider supports it. */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** Schema name (some providers require one). */
  readonly name?: string;
}

/** Everything a {@link ChatModel} needs for one call. */
export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  /** Request JSON output (`true` for any JSON object). */
  readonly json?: boolean | JsonOutputRequest;
  /** Cancels the call; an aborted call rejects with the signal's reason and is never retried. */
  readonly signal: AbortSignal;
  readonly meta: ChatRequestMeta;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
}

/** Token accounting reported by a provider. */
export interface ChatUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** The result of one model call. */
export interface ChatResponse {
  readonly text: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: ChatUsage;
  /** Provider finish reason (`stop`, `length`, `tool-calls`, …) when known. */
  readonly finishReason?: string;
}

/** A streamed piece of a response: text as it arrives, then exactly one `finish`. */
export type ChatStreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'finish'; readonly response: ChatResponse };

/**
 * The kernel's port to a language model. Every stage and the actor talk to models only through
 * this interface, so no stage depends on an SDK version.
 */
export interface ChatModel {
  /** Stable identifier, e.g. `openai-compatible:qwen2.5` or `offline`. */
  readonly id: string;
  /** One complete call. Rejects with the abort reason when `request.signal` aborts. */
  generate(request: ChatRequest): Promise<ChatResponse>;
  /** Optional streaming variant; the kernel uses it for the actor when present. */
  stream?(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

/** Names a model: provider id and model name; both optional to mean "the default". */
export interface ModelRef {
  readonly provider?: string;
  readonly model?: string;
}

/** Resolves provider/model pairs to models; a session and a story pipeline may use different ones. */
export interface ModelRegistry {
  /**
   * @param ref - which model; an empty ref means the registry's default
   * @throws {KernelError} KERNEL_MODEL_NOT_FOUND when nothing matches
   */
  resolve(ref?: ModelRef): ChatModel;
}
