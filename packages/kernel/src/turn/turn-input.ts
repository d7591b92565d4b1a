import * as z from 'zod';
import type { TokenBudgetSettings } from '../budget/token-budget.js';
import type { ModelRef } from '../ports/chat-model.js';
import { SESSION_ID_PATTERN } from '../ports/session-log.js';

/** Per-scenario switches: which kernel facilities and tools a turn may use. */
export interface Scenario {
  /** Run the pre-actor director (control model + tool loop) before `preActor` handlers. */
  readonly preActorDirector?: boolean;
  /** Tools the director may call in this scenario; omitted = every registered tool. */
  readonly tools?: readonly string[];
  /** The director's model; default = the registry's default. */
  readonly directorModel?: ModelRef;
  /** The actor's model; default = the registry's default. */
  readonly actorModel?: ModelRef;
  /** The chat's token budget (context size, response length, world info share); see `contextKeys.tokenBudget`. */
  readonly tokenBudget?: TokenBudgetSettings;
  /**
   * Sampling settings for the actor's call (a SillyTavern preset's temperature, top_p and
   * penalties): passed on in its request; the director and other stages keep their own.
   */
  readonly actorSampling?: ActorSampling;
}

/** Sampling settings of the actor's call (see {@link ChatRequest}). */
export interface ActorSampling {
  readonly temperature?: number;
  readonly topP?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
}

const modelRefSchema = z.object({ provider: z.string().min(1).optional(), model: z.string().min(1).optional() }).strict();

/** Schema of {@link Scenario}. */
export const ScenarioSchema = z
  .object({
    preActorDirector: z.boolean().optional(),
    tools: z.array(z.string().min(1)).optional(),
    directorModel: modelRefSchema.optional(),
    actorModel: modelRefSchema.optional(),
    tokenBudget: z
      .object({
        contextTokens: z.int().min(256).max(100_000_000).optional(),
        responseTokens: z.int().min(1).max(10_000_000).optional(),
        worldInfoTokens: z.int().min(0).max(100_000_000).optional(),
      })
      .strict()
      .optional(),
    actorSampling: z
      .object({
        temperature: z.number().min(0).max(2).optional(),
        topP: z.number().min(0).max(1).optional(),
        frequencyPenalty: z.number().min(-2).max(2).optional(),
        presencePenalty: z.number().min(-2).max(2).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Longest player input accepted (characters). */
export const MAX_INPUT_LENGTH = 100_000;

/** What a turn id looks like: 1–128 of letters, digits, `_`, `.`, `:` and `-`, starting with a letter or digit. */
const TURN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** Schema of {@link TurnInput}; `runTurn` validates its input with it. */
export const TurnInputSchema = z
  .object({
    sessionId: z.string().regex(SESSION_ID_PATTERN, 'use 1–64 of a-z, 0-9, "_" and "-", starting with a letter or digit'),
    text: z.string().min(1, 'must not be empty').max(MAX_INPUT_LENGTH),
    turnId: z.string().regex(TURN_ID_PATTERN, 'use 1–128 of letters, digits, "_", ".", ":" and "-"').optional(),
    step: z.number().int().min(0).optional(),
    userId: z.string().min(1).max(256).optional(),
    authorization: z.string().max(8192).optional(),
    scenario: ScenarioSchema.optional(),
    attributes: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** What a caller passes to `runTurn`. */
export interface TurnInput {
  /** The conversation; its history is loaded from the session log. */
  readonly sessionId: string;
  /** The player's raw input for this turn. */
  readonly text: string;
  /** Stable id of the turn; generated when omitted. Retrying a turn = same id. */
  readonly turnId?: string;
  /** Regeneration index of the turn (0 = first attempt). */
  readonly step?: number;
  /** The player's user id (used by services such as DIO). */
  readonly userId?: string;
  /** The player's authorization header, forwarded to services; never logged or stored. */
  readonly authorization?: string;
  /** Overrides the harness's default scenario for this turn. */
  readonly scenario?: Scenario;
  /** Free-form string attributes for plugins (e.g. a target prompt id). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/**
 * The common turn input — a plain object of `sessionId`, `text` and optionally `turnId` and
 * `step`, every value valid — checked by hand, as {@link TurnInputSchema} would parse it (a new
 * object, keys in the schema's order); `undefined` for anything else, which the schema then
 * parses (and reports). Runs before every turn: the schema's parse costs tens of microseconds.
 * @param input - what the caller passed to `runTurn`
 * @returns the parsed input, or `undefined` when only the schema can tell
 */
export function plainTurnInput(input: unknown): TurnInput | undefined {
  if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype) return undefined;
  const { sessionId, text, turnId, step } = input as Record<string, unknown>;
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) return undefined;
  if (typeof text !== 'string' || text.length < 1 || text.length > MAX_INPUT_LENGTH) return undefined;
  let keys = 2;
  if (turnId !== undefined) {
    if (typeof turnId !== 'string' || !TURN_ID_PATTERN.test(turnId)) return undefined;
    keys += 1;
  }
  if (step !== undefined) {
    if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) return undefined;
    keys += 1;
  }
  // No other key (nor one of these holding `undefined`): the schema decides those.
  if (Object.keys(input).length !== keys) return undefined;
  if (turnId === undefined) return step === undefined ? { sessionId, text } : { sessionId, text, step };
  return step === undefined ? { sessionId, text, turnId } : { sessionId, text, turnId, step };
}
