import type { ChatMessage, ChatRequest, ToolCall } from '@troupe/kernel';
import type { OpenAICompatibleConfig, StructuredOutputLevel } from './config.js';
import { ModelError } from './model-error.js';
import { isMistralApi, toMistralMessages } from './mistral-messages.js';
import { jsonRequestShape } from './structured-output.js';

// OpenAI only accepts ASCII-ish speaker names; a character called "林默" would get a 400.
const WIRE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Converts kernel messages to OpenAI chat messages.
 * @param messages - the request's messages
 * @param modelId - for error messages
 * @returns wire messages
 * @throws {ModelError} MODEL_BAD_REQUEST when a `tool` message has no `toolCallId`
 */
export function toWireMessages(messages: readonly ChatMessage[], modelId: string): Record<string, unknown>[] {
  return messages.map((message, index) => {
    const name = message.name !== undefined && WIRE_NAME.test(message.name) ? { name: message.name } : {};
    switch (message.role) {
      case 'tool':
        if (!message.toolCallId) {
          throw new ModelError('MODEL_BAD_REQUEST', `Message ${index} has role "tool" but no toolCallId.`, { modelId });
        }
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content === '' && message.toolCalls?.length ? null : message.content,
          ...name,
          ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map(toWireToolCall) } : {}),
        };
      default:
        return { role: message.role, content: message.content, ...name };
    }
  });
}

function toWireToolCall(call: ToolCall): Record<string, unknown> {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

/** Per-request choices the model makes from what it knows about the server. */
export interface WireBodyOptions {
  /** Whether to stream. */
  readonly stream: boolean;
  /** Whether to send `stream_options.include_usage` (streams only). */
  readonly streamUsage: boolean;
  /** The structured output level for a JSON request. */
  readonly jsonLevel?: StructuredOutputLevel;
}

// OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, …; also behind a router's `openai/` prefix)
// refuse `max_tokens` (they count thinking too: `max_completion_tokens`) and every sampling field.
const OPENAI_REASONING_MODEL = /^(openai\/)?(o[1-9]|gpt-5)/i;

/** The length and sampling fields of a request, in the names the model's server takes. */
function samplingFields(request: ChatRequest, config: OpenAICompatibleConfig): Record<string, number> {
  const length = request.maxOutputTokens;
  if (OPENAI_REASONING_MODEL.test(config.model)) return length === undefined ? {} : { max_completion_tokens: length };
  const temperature = request.temperature ?? config.temperature;
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(length !== undefined ? { max_tokens: length } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.frequencyPenalty !== undefined ? { frequency_penalty: request.frequencyPenalty } : {}),
    ...(request.presencePenalty !== undefined ? { presence_penalty: request.presencePenalty } : {}),
  };
}

/**
 * Builds the request body for `POST /chat/completions`.
 * @param request - the kernel request
 * @param config - resolved configuration
 * @param options - streaming, stream usage and the JSON level
 * @param modelId - for error messages
 * @returns the JSON body
 */
export function toWireBody(request: ChatRequest, config: OpenAICompatibleConfig, options: WireBodyOptions, modelId: string): Record<string, unknown> {
  const shape = request.json ? jsonRequestShape(request, options.jsonLevel ?? 'json_object') : undefined;
  const messages = shape?.messages ?? request.messages;
  const body: Record<string, unknown> = {
    ...config.extraBody,
    model: config.model,
    messages: toWireMessages(isMistralApi(config.baseURL) ? toMistralMessages(messages) : messages, modelId),
    ...samplingFields(request, config),
  };
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (shape?.responseFormat) body.response_format = shape.responseFormat;
  if (options.stream) {
    body.stream = true;
    if (options.streamUsage) body.stream_options = { include_usage: true };
  }
  return body;
}

/**
 * Maps an OpenAI finish reason to the kernel's vocabulary (`tool_calls` → `tool-calls`).
 * @param reason - the wire finish reason
 */
export function fromWireFinishReason(reason: string | null | undefined): string | undefined {
  // Some servers send `""` on every chunk, or on the last one, for "no reason".
  if (!reason || reason.trim() === '') return undefined;
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool-calls';
  if (reason === 'content_filter') return 'content-filter';
  return reason;
}

/**
 * Parses tool call arguments. Unparseable arguments are passed on as the raw string so the
 * kernel's tool executor can answer the model with a clear validation error.
 * @param raw - the JSON text the model produced
 */
export function parseToolArguments(raw: string | null | undefined): unknown {
  if (raw === null || raw === undefined || raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
