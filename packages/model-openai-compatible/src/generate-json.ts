import { formatIssues } from '@troupe/kernel';
import { abortReason, extractJson, stripReasoning } from '@troupe/kernel/util';
import type { ChatModel, ChatRequest, ChatResponse } from '@troupe/kernel';
import * as z from 'zod';
import { ModelError } from './model-error.js';

/** Options of {@link generateJson}. */
export interface GenerateJsonOptions {
  /** Schema name sent to the provider (default `output`). */
  readonly name?: string;
  /** Corrective retries after invalid output (default 1; 0 disables the retry). */
  readonly correctiveRetries?: 0 | 1;
}

/** A validated JSON result and the responses it took. */
export interface JsonResult<T> {
  /** The parsed, validated value. */
  readonly value: T;
  /** Every model response, in order (1, or 2 after a corrective retry) — for usage accounting. */
  readonly responses: readonly ChatResponse[];
}

/**
 * Asks any {@link ChatModel} for JSON matching a zod schema: sends the schema as JSON Schema,
 * takes the first balanced JSON object of the answer (past any `<think>` block, code fence or
 * prose), validates it, and on invalid output makes ONE corrective call that shows the
 * model its output and the validation issues. Abort is never retried.
 * @param model - any chat model (OpenAI-compatible, offline, scripted)
 * @param request - the request; `json` is filled in from `schema`
 * @param schema - the zod schema the output must satisfy
 * @param options - schema name and corrective retry count
 * @returns the value and the responses
 * @throws the abort reason when `request.signal` aborts
 * @throws {ModelError} MODEL_JSON_INVALID when the output is still invalid after the retry
 *   (details: `issues`, `output`); model failures propagate unchanged
 */
export async function generateJson<S extends z.ZodType>(
  model: ChatModel,
  request: Omit<ChatRequest, 'json'>,
  schema: S,
  options: GenerateJsonOptions = {},
): Promise<JsonResult<z.output<S>>> {
  const json = { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>, name: options.name ?? 'output' };
  const responses: ChatResponse[] = [];
  let messages = [...request.messages];
  const attempts = 1 + (options.correctiveRetries ?? 1);
  let lastProblem = '';
  let lastText = '';
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (request.signal.aborted) throw abortReason(request.signal);
    let response: ChatResponse;
    try {
      response = await model.generate({ ...request, messages, json });
    } catch (error) {
      if (request.signal.aborted) throw abortReason(request.signal);
      throw error;
    }
    responses.push(response);
    const checked = validate(response.text, schema);
    if (checked.ok) return { value: checked.value, responses };
    lastProblem = checked.problem;
    lastText = response.text;
    messages = [
      ...request.messages,
      { role: 'assistant', content: response.text },
      {
        role: 'user',
        content: `Your previous answer was not valid: ${checked.problem}\nReply again with only a JSON value that matches this JSON Schema:\n${JSON.stringify(json.schema)}`,
      },
    ];
  }
  throw new ModelError('MODEL_JSON_INVALID', `${model.id}: JSON output for stage "${request.meta.stage}" is invalid after ${attempts} attempt(s): ${lastProblem}`, {
    modelId: model.id,
    details: { output: lastText, problem: lastProblem },
  });
}

function validate<S extends z.ZodType>(text: string, schema: S): { ok: true; value: z.output<S> } | { ok: false; problem: string } {
  // Any ChatModel may answer with inline reasoning, a code fence or prose around the JSON.
  const answer = stripReasoning(text);
  let data: unknown;
  try {
    data = JSON.parse(extractJson(answer) ?? answer);
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(data);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: formatIssues(parsed.error) };
}
