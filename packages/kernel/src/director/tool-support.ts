import type { ChatModel } from '../ports/chat-model.js';

/**
 * Why the director asks a model for a JSON decision instead of a tool call:
 * - `capability` — the model says it has no tool calling (`capabilities.tools === false`);
 * - `rejected` — the server answered the request with `tools` by an HTTP 400/422/500/501;
 * - `ignored` — the server dropped `tools`: the model named a tool in plain text instead of calling it.
 */
export type ToolFallbackReason = 'capability' | 'rejected' | 'ignored';

/** What the director learnt about a model's tool calling. */
export interface ToolSupport {
  readonly reason: ToolFallbackReason;
  /** The HTTP status of the rejection, for `rejected`. */
  readonly status?: number;
  /**
   * For `rejected`: the refusal says it is about tool calling (remembered for later turns). A
   * refusal that does not say so (a GPU out of memory, an unsupported sampler field) may be
   * passing or unrelated: only that turn asks for a JSON decision.
   */
  readonly lasting?: boolean;
}

// Learnt per model object for the process's lifetime: a server that refused `tools` once, saying
// so, is asked for JSON decisions from then on, instead of failing one call every turn.
const learnt = new WeakMap<ChatModel, ToolSupport>();

// Status codes servers answer a request they cannot serve because of `tools`: llama.cpp without
// `--jinja` (500), vLLM without `--enable-auto-tool-choice` (400), Ollama models without a tool
// template (400), gateways that validate the body (422), servers that never implemented it (501).
const TOOL_REJECTION_STATUS: ReadonlySet<number> = new Set([400, 422, 500, 501]);

/** The error code model providers use for "this server has no tool calling" (`@troupe/model-openai-compatible`). */
const TOOLS_UNSUPPORTED_CODE = 'MODEL_TOOLS_UNSUPPORTED';

// How servers word a refusal of tool calling: Ollama "does not support tools", vLLM "auto tool
// choice requires --enable-auto-tool-choice", llama.cpp "tools param requires --jinja flag".
const NAMES_TOOL_CALLING = /\btools?\b|tool[_ ]choice|function[_ ]call/i;

/**
 * What is known about a model's tool calling before a call: its own declaration, or what an
 * earlier turn learnt.
 * @param model - the director's model
 * @returns the reason to use JSON decisions, or undefined to offer tools
 */
export function knownToolSupport(model: ChatModel): ToolSupport | undefined {
  if (model.capabilities?.tools === false) return { reason: 'capability' };
  return learnt.get(model);
}

/**
 * Remembers that a model cannot take tools.
 * @param model - the director's model
 * @param support - why
 */
export function rememberToolSupport(model: ChatModel, support: ToolSupport): void {
  learnt.set(model, support);
}

/**
 * The HTTP status of an error that is the server refusing a request with `tools`, if it is one.
 * Model providers put the status on their errors (`status`, or on the `cause`).
 * @param error - what the model call threw
 * @returns the status (0 when a provider refused before sending, `MODEL_TOOLS_UNSUPPORTED`), or
 *   undefined when the error is not such a refusal
 */
export function toolRejectionStatus(error: unknown): number | undefined {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
    const status = (current as { status?: unknown }).status;
    if (typeof status === 'number') return TOOL_REJECTION_STATUS.has(status) ? status : undefined;
    // A provider that already knows the server has no tools refuses before sending (no status).
    if ((current as { code?: unknown }).code === TOOLS_UNSUPPORTED_CODE) return 0;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a refusal found by {@link toolRejectionStatus} is about tool calling for good: the
 * provider says so (`MODEL_TOOLS_UNSUPPORTED`), or the server's message names tools.
 * @param error - what the model call threw
 */
export function isLastingToolRefusal(error: unknown): boolean {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
    if ((current as { code?: unknown }).code === TOOLS_UNSUPPORTED_CODE) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && NAMES_TOOL_CALLING.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
