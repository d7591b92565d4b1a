import * as z from 'zod';
import type { JsonOutputRequest, ToolSpec } from '../ports/chat-model.js';
import { extractJson, stripReasoning } from '../text/model-answer.js';

/** JSON Schema of the director's decision, sent as the structured-output schema. */
export const DECISION_JSON_SCHEMA: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    tool: { type: ['string', 'null'], description: 'the tool to use, or null when no tool is needed' },
    arguments: { type: 'object', description: "the tool's arguments" },
  },
  required: ['tool'],
};

/** The structured-output request of a decision round. */
export const DECISION_OUTPUT: JsonOutputRequest = { schema: DECISION_JSON_SCHEMA, name: 'director_decision' };

/** A parsed decision: a tool and its arguments, or none. */
export type DirectorDecision = { readonly tool: string; readonly arguments: unknown } | { readonly tool: null };

// `{"tool": …}` is what we ask for; `{"name": …, "arguments": …}` is how many models write a
// tool call anyway, so it is accepted too. The arguments stay unvalidated: the executor checks them.
const decisionSchema = z.union([
  z.looseObject({ tool: z.string().nullable(), arguments: z.unknown().optional() }),
  z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
]);

/**
 * The instructions appended to the director's system prompt when it answers with JSON.
 * @param tools - the tools available in this scenario
 * @returns the text
 */
export function decisionInstructions(tools: readonly ToolSpec[]): string {
  return [
    'You cannot call tools directly. Answer with exactly one JSON object and nothing else:',
    '{"tool": "<tool name>", "arguments": {…}} to use a tool, or {"tool": null} when no tool is needed.',
    'Available tools:',
    ...tools.map((tool) => `- ${tool.name}: ${tool.description}\n  arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`),
  ].join('\n');
}

/**
 * What the model is told after a decision was carried out (or refused).
 * @param tool - the tool decided on
 * @param outcome - the executor's outcome
 * @returns the follow-up user message
 */
export function decisionResultMessage(tool: string, outcome: unknown): string {
  return `Result of ${tool}: ${JSON.stringify(outcome)}\nAnswer with one JSON object again: another tool, or {"tool": null} when no further tool is needed.`;
}

/**
 * Reads the director's decision from a model answer: reasoning removed, the first JSON object
 * found, `{tool, arguments}` (or `{name, arguments}`) checked; `"none"` and `null` mean no tool.
 * @param text - the model's answer
 * @returns the decision, or why it is not one
 */
export function parseDecision(text: string): { ok: true; decision: DirectorDecision } | { ok: false; problem: string } {
  const visible = stripReasoning(text);
  const json = extractJson(visible, { arrays: false });
  if (json === undefined) {
    if (/^["'`]*none[."'`]*$/i.test(visible)) return { ok: true, decision: { tool: null } };
    return { ok: false, problem: 'the answer holds no JSON object' };
  }
  const parsed = decisionSchema.safeParse(JSON.parse(json));
  if (!parsed.success) return { ok: false, problem: 'the JSON object has no "tool" field (a tool name or null)' };
  const value = parsed.data as { tool?: string | null; name?: string; arguments?: unknown };
  const tool = value.tool !== undefined ? value.tool : (value.name ?? null);
  if (tool === null || tool.trim() === '' || tool.trim().toLowerCase() === 'none') return { ok: true, decision: { tool: null } };
  return { ok: true, decision: { tool: tool.trim(), arguments: value.arguments ?? {} } };
}
