import { type ChatMessage, type ChatModel, type ChatRequest, type Clock, formatIssues } from '@troupe/kernel';
import { abortReason, type DeadlineGroup, describeError, formatIssuePath, freezeJson, type LazySignal, runWithinLazily } from '@troupe/kernel/util';
import * as z from 'zod';
import { checkStagePrompt } from '../budget/fit-prompt.js';
import { defaultStagePromptBudget, type StagePromptBudget } from '../budget/stage-budget.js';
import { StoryError } from '../errors.js';
import { plainCheckOf } from './plain-check.js';
import { STORY_EVENTS } from '../events.js';

/** The story stages (the `meta.stage` of every model call). */
export type StoryStage = 'story/research' | 'story/character' | 'story/director' | 'story/section' | 'story/editor' | 'story/continuity';

/** Where stage events go: the turn's `ctx.events.append`, or a test sink. */
export type StoryEventSink = (type: string, data: unknown) => void;

/** What every stage call needs from the turn. */
export interface StageEnvironment {
  readonly model: ChatModel;
  /** The turn's signal: cancellation (never recorded as a failure). */
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly turnId: string;
  readonly emit: StoryEventSink;
  /** The harness clock that the time limits run on. */
  readonly clock: Clock;
  /** Longest time one stage call may take (ms). */
  readonly stageTimeoutMs: number;
  /** When the whole preparation must be over (`clock` time; `Infinity` for none). */
  readonly deadlineAt: number;
  /** The preparation's deadline as configured (ms), for messages. */
  readonly deadlineMs?: number;
  /** What every stage prompt may take (default: {@link defaultStagePromptBudget}). */
  readonly budget?: StagePromptBudget;
  /**
   * The deadlines of the preparation's stage calls as one group (one timer and one listener on
   * `signal` for all of them; made by `prepareDraft`); without it each call races alone.
   */
  readonly deadlines?: DeadlineGroup;
}

/**
 * The stage budget of an environment.
 * @param env - the stage environment
 */
export function stageBudget(env: StageEnvironment): StagePromptBudget {
  return env.budget ?? defaultStagePromptBudget();
}

/**
 * Whether the preparation's deadline has passed.
 * @param env - the stage environment
 */
export function deadlinePassed(env: StageEnvironment): boolean {
  return env.clock.now() >= env.deadlineAt;
}

/**
 * The error of a preparation that ran out of time.
 * @param env - the stage environment
 * @param what - what could not finish, e.g. `story/director`
 */
export function deadlineError(env: StageEnvironment, what: string): StoryError {
  return new StoryError('STORY_DEADLINE_EXCEEDED', `${what} did not finish within the story preparation deadline of ${env.deadlineMs ?? 'the configured'} ms (pipeline.deadlineMs)`);
}

/** One stage call: which stage, which item (character/section id), and the messages. */
export interface StageCall {
  readonly stage: StoryStage;
  readonly item?: string;
  readonly messages: readonly ChatMessage[];
  /** At most this many tokens under the environment's budget, when the builder fitted them (the last check then counts nothing). */
  readonly tokens?: number;
}

/**
 * Calls the model for a prose stage; records the request (`agent-rp/story-stage-request`) and the
 * result or a stable failure (`agent-rp/story-stage-result`).
 * @param env - the turn's model, signal, identity and event sink
 * @param call - the stage, item and messages
 * @param check - the stage's own rules for the trimmed answer, throwing a `StoryError` to reject it
 * @returns the trimmed text
 * @throws {StoryError} whatever `check` throws, STORY_STAGE_PROMPT_TOO_LARGE (over the stage budget; not sent), STORY_STAGE_MODEL_FAILED (the model call failed), STORY_STAGE_EMPTY (blank
 *   answer); the abort reason when cancelled (never recorded as a failure)
 */
export function callProseStage(env: StageEnvironment, call: StageCall, check?: (text: string) => void): Promise<string> {
  return runStage(env, call, undefined, (text) => {
    const trimmed = text.trim();
    if (!trimmed) throw new StoryError('STORY_STAGE_EMPTY', `${call.stage} returned no text`);
    // A stage's own rules (the editor's headings and size) run before its result is recorded,
    // so a rejected answer is recorded as a failure, not as done.
    check?.(trimmed);
    return trimmed;
  });
}

/**
 * Calls the model for a structured stage with the schema's JSON Schema, validates the answer, and
 * records the request and the result or a stable failure like {@link callProseStage}.
 * @param env - the turn's model, signal, identity and event sink
 * @param call - the stage, item and messages
 * @param schema - the zod schema the answer must fit (also sent to the model as JSON Schema)
 * @param name - the JSON Schema's name for the provider
 * @returns the validated value
 * @throws {StoryError} STORY_STAGE_PROMPT_TOO_LARGE (over the stage budget; not sent), STORY_STAGE_MODEL_FAILED (the model call failed), STORY_STAGE_OUTPUT_INVALID
 *   (not JSON, or not fitting the schema); the abort reason when cancelled (never recorded as a failure)
 */
export function callJsonStage<S extends z.ZodType>(env: StageEnvironment, call: StageCall, schema: S, name: string): Promise<z.output<S>> {
  let json: StageJson;
  try {
    json = stageJsonOf(schema, name);
  } catch (error) {
    return Promise.reject(error);
  }
  return runStage(env, call, json, (text) => parseJsonOutput(text, schema, call.stage));
}

/** The `json` of a structured stage's request: the JSON Schema and its name. */
interface StageJson {
  readonly schema: Record<string, unknown>;
  readonly name: string;
}

// The `json` of a stage's requests, made once per schema and name (not per call) and frozen with
// its JSON text (`freezeJson`): the logged stage request splices that text in, not re-serialising
// the same JSON Schema on every call.
const jsonRequests = new WeakMap<z.ZodType, Map<string, StageJson>>();

function stageJsonOf(schema: z.ZodType, name: string): StageJson {
  let byName = jsonRequests.get(schema);
  if (!byName) {
    byName = new Map();
    jsonRequests.set(schema, byName);
  }
  let json = byName.get(name);
  if (!json) {
    json = freezeJson({ schema: z.toJSONSchema(schema) as Record<string, unknown>, name });
    byName.set(name, json);
  }
  return json;
}

/**
 * The model request of a stage call. Its `signal` is a getter for the call's lazily made signal:
 * a model that passes it to its HTTP call gets it as usual, one that never reads it (an instant
 * or cached answer) costs no AbortSignal (≈ 4 µs each on Node 20, a dozen per story turn). The
 * getter is an own property, so a model that spreads the request (`{ ...request, json }`) keeps it.
 */
function stageRequest(env: StageEnvironment, call: StageCall, json: StageJson | undefined, lazy: LazySignal): ChatRequest {
  const meta = { stage: call.stage, sessionId: env.sessionId, turnId: env.turnId };
  return json
    ? {
        messages: call.messages,
        json,
        get signal() {
          return lazy.signal;
        },
        meta,
      }
    : {
        messages: call.messages,
        get signal() {
          return lazy.signal;
        },
        meta,
      };
}

// The logged request: stage, item (when the call has one), model, messages, json (structured
// stages) — in this key order, as always; built as one literal per shape (no spreads).
function requestData(env: StageEnvironment, call: StageCall, json: StageJson | undefined): Record<string, unknown> {
  const { stage, item, messages } = call;
  const model = env.model.id;
  if (item === undefined) return json ? { stage, model, messages, json } : { stage, model, messages };
  return json ? { stage, item, model, messages, json } : { stage, item, model, messages };
}

/**
 * One stage call from its checks to its recorded result. A plain promise chain rather than an
 * async function: it runs once per model call on the path from one model answer to the next
 * request, and the chain keeps no suspended frame per call. Never throws synchronously.
 */
function runStage<T>(env: StageEnvironment, call: StageCall, json: StageJson | undefined, accept: (text: string) => T): Promise<T> {
  const { signal } = env;
  try {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    // A stage that would start after the deadline is not requested at all (no request, no result).
    const untilDeadline = env.deadlineAt - env.clock.now();
    if (untilDeadline <= 0) return Promise.reject(deadlineError(env, call.stage));
    // A prompt over its budget is never sent (nor recorded as a request): the caller degrades.
    checkStagePrompt(stageBudget(env), call.stage, call.messages, call.tokens);
    env.emit(STORY_EVENTS.stageRequest, requestData(env, call, json));
    // Whichever comes first bounds the call: the stage's own timeout or the preparation deadline.
    const byDeadline = untilDeadline < env.stageTimeoutMs;
    const limitError = () =>
      byDeadline ? deadlineError(env, call.stage) : new StoryError('STORY_STAGE_TIMEOUT', `${call.stage} did not answer within ${env.stageTimeoutMs} ms (pipeline.stageTimeoutMs)`);
    const ms = Math.min(untilDeadline, env.stageTimeoutMs);
    const generate = (lazy: LazySignal) => env.model.generate(stageRequest(env, call, json, lazy));
    const answering = env.deadlines ? env.deadlines.runWithin(ms, limitError, generate) : runWithinLazily(env.clock, ms, signal, limitError, generate);
    return answering.then(
      (response) => {
        let text: string;
        try {
          text = response.text;
        } catch (cause) {
          throw failedCall(env, call, cause);
        }
        return acceptAnswer(env, call, text, accept);
      },
      (cause: unknown) => {
        throw failedCall(env, call, cause);
      },
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

// A call that failed (or ran out of time): cancellation is never a failure result (the abort
// reason, nothing recorded); anything else gets its stable failure result.
function failedCall(env: StageEnvironment, call: StageCall, cause: unknown): unknown {
  if (env.signal.aborted) return abortReason(env.signal);
  const error = StoryError.isInstance(cause) ? cause : new StoryError('STORY_STAGE_MODEL_FAILED', `${call.stage} model call failed: ${describeError(cause).message}`, { cause });
  const item = call.item === undefined ? {} : { item: call.item };
  env.emit(STORY_EVENTS.stageResult, { stage: call.stage, ...item, ok: false, error: { code: error.code, message: error.message } });
  return error;
}

function acceptAnswer<T>(env: StageEnvironment, call: StageCall, text: string, accept: (text: string) => T): T {
  if (env.signal.aborted) throw abortReason(env.signal);
  const { stage, item } = call;
  try {
    const value = accept(text);
    env.emit(STORY_EVENTS.stageResult, item === undefined ? { stage, ok: true, text } : { stage, item, ok: true, text });
    return value;
  } catch (error) {
    const described = describeError(error);
    env.emit(STORY_EVENTS.stageResult, { stage, ...(item === undefined ? {} : { item }), ok: false, text, error: { code: described.code ?? 'STORY_STAGE_OUTPUT_INVALID', message: described.message } });
    throw error;
  }
}

/**
 * Parses a model's JSON answer (tolerating a Markdown code fence) and validates it.
 * @param text - the model's answer
 * @param schema - the zod schema it must fit
 * @param stage - the stage name, for the error message
 * @returns the validated value
 * @throws {StoryError} STORY_STAGE_OUTPUT_INVALID naming the first bad field (`output` for a JSON syntax error)
 */
export function parseJsonOutput<S extends z.ZodType>(text: string, schema: S, stage: string): z.output<S> {
  // Most answers are bare JSON: the fence pattern runs only on text that has a fence.
  const fenced = text.includes('```') ? /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text) : null;
  let value: unknown;
  try {
    value = JSON.parse(fenced ? (fenced[1] ?? '') : text);
  } catch (cause) {
    throw new StoryError('STORY_STAGE_OUTPUT_INVALID', `${stage} did not return JSON: ${(cause as Error).message}`, { cause });
  }
  // An answer that plainly fits (the usual case) is already what zod would return.
  if (plainCheckOf(schema)?.(value)) return value as z.output<S>;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const field = formatIssuePath(parsed.error.issues[0]?.path, 'output');
  throw new StoryError('STORY_STAGE_OUTPUT_INVALID', `${stage} returned JSON that does not fit the schema: ${formatIssues(parsed.error, { root: 'output' })}`, { field });
}
