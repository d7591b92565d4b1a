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
  /** Nucleus sampling (`top_p`), 0–1. */
  readonly topP?: number;
  /** Frequency penalty, −2–2. */
  readonly frequencyPenalty?: number;
  /** Presence penalty, −2–2. */
  readonly presencePenalty?: number;
}

/** Token accounting reported by a provider. */
export interface ChatUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** The result of one model call. */
export interface ChatResponse {
  /** The visible answer, without any reasoning (a provider separates `<think>…</think>` and reasoning fields). */
  readonly text: string;
  /**
   * The model's reasoning ("thinking"), when it produced any: kept apart from `text` so it never
   * reaches a reply, a JSON parser or the next prompt; an app may show it collapsed.
   */
  readonly reasoning?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: ChatUsage;
  /** Provider finish reason (`stop`, `length`, `tool-calls`, …) when known. */
  readonly finishReason?: string;
}

/**
 * A streamed piece of a response: visible text and reasoning as they arrive, then exactly one
 * `finish`. The finish's `response` is authoritative: when a provider learns late that streamed
 * text was reasoning (a `</think>` without an opening tag), `response.text` is the clean answer.
 */
export type ChatStreamPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | { readonly type: 'reasoning-delta'; readonly text: string }
  | { readonly type: 'finish'; readonly response: ChatResponse };

/**
 * What a model is known to support. `undefined` means "not known yet": a provider may learn it
 * from the server's answers (e.g. a server that rejects `tools`) and update the value.
 */
export interface ModelCapabilities {
  /** Native tool calling (`tools` in a request). `false`: callers should use a JSON fallback. */
  readonly tools?: boolean;
  /** The model's context window in tokens, when known: the default of a chat's `tokenBudget.contextTokens`. */
  readonly contextTokens?: number;
}

/**
 * Counts tokens of text for prompt budgeting. Implementations: an exact BPE for the model's
 * family, or an estimate; the kernel calibrates either against the `usage.inputTokens` a server
 * reports.
 */
export interface Tokenizer {
  /** Identifies the counting method, e.g. `o200k_base` or `estimate`. */
  readonly id: string;
  /** True when the count is exact for the model (not an estimate). */
  readonly exact: boolean;
  /** Number of tokens of `text`. Pure and synchronous. */
  count(text: string): number;
  /**
   * Optional: the most tokens this tokenizer ever gives per UTF-16 code unit, so no text of `n`
   * code units counts more than `Math.ceil(n * maxTokensPerChar)`. A caller fitting text to a
   * budget can skip counting text that fits even at that rate (the kernel's estimate declares it).
   */
  readonly maxTokensPerChar?: number;
}

/**
 * The kernel's port to a language model. Every stage and the actor talk to models only through
 * this interface, so no stage depends on an SDK version.
 */
export interface ChatModel {
  /** Stable identifier, e.g. `openai-compatible:qwen2.5` or `offline`. */
  readonly id: string;
  /** What the model supports, as far as known (see {@link ModelCapabilities}). */
  readonly capabilities?: ModelCapabilities;
  /** How to count this model's tokens; without one the kernel uses its Chinese-aware estimate. */
  readonly tokenizer?: Tokenizer;
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
