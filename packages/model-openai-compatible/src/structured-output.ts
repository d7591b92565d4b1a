import type { ChatMessage, ChatRequest } from '@troupe/kernel';
import type { StructuredOutputLevel, StructuredOutputSetting } from './config.js';

const LADDER: readonly StructuredOutputLevel[] = ['json_schema', 'json_object', 'prompt'];

/**
 * The levels to try for one JSON request, in order: a fixed setting is the only level; `auto`
 * starts at the level remembered for the model (or the top) and may step down. `json_schema`
 * needs a schema, so a request without one starts at `json_object`.
 * @param setting - the configured `structuredOutput`
 * @param remembered - the level that last worked for this model, if any
 * @param hasSchema - whether the request carries a JSON Schema
 * @returns levels, strongest first
 */
export function levelsToTry(setting: StructuredOutputSetting, remembered: StructuredOutputLevel | undefined, hasSchema: boolean): StructuredOutputLevel[] {
  if (setting !== 'auto') return [setting === 'json_schema' && !hasSchema ? 'json_object' : setting];
  const start = Math.max(LADDER.indexOf(remembered ?? 'json_schema'), hasSchema ? 0 : 1);
  return LADDER.slice(start);
}

/** The instruction added on the `prompt` level (and the body fields of the other levels). */
export interface JsonRequestShape {
  /** `response_format` to send, or undefined on the `prompt` level. */
  readonly responseFormat: Record<string, unknown> | undefined;
  /** The messages to send (on the `prompt` level with the schema instruction added). */
  readonly messages: readonly ChatMessage[];
}

/**
 * How a JSON request looks on one level of the ladder.
 * @param request - the request (`json` set)
 * @param level - the level
 * @returns `response_format` and messages
 */
export function jsonRequestShape(request: ChatRequest, level: StructuredOutputLevel): JsonRequestShape {
  const json = typeof request.json === 'object' ? request.json : {};
  if (level === 'json_schema' && json.schema) {
    return {
      responseFormat: { type: 'json_schema', json_schema: { name: json.name || 'output', schema: json.schema, strict: false } },
      messages: request.messages,
    };
  }
  if (level !== 'prompt') return { responseFormat: { type: 'json_object' }, messages: request.messages };
  return { responseFormat: undefined, messages: withJsonInstruction(request.messages, json.schema) };
}

/**
 * Adds "answer with JSON only" (and the schema) to the first system message, or as a first
 * system message: chat templates of several models (Mistral's, Gemma's) reject a system message
 * anywhere but first.
 * @param messages - the request's messages
 * @param schema - the JSON Schema, when there is one
 * @returns new messages
 */
export function withJsonInstruction(messages: readonly ChatMessage[], schema: Readonly<Record<string, unknown>> | undefined): ChatMessage[] {
  const instruction = schema
    ? `Answer with only one JSON object that matches this JSON Schema, and nothing else (no prose, no code fence):\n${JSON.stringify(schema)}`
    : 'Answer with only one JSON object, and nothing else (no prose, no code fence).';
  const first = messages[0];
  if (first?.role === 'system') return [{ ...first, content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)];
  return [{ role: 'system', content: instruction }, ...messages];
}
