import { abortReason, describeError, pollOnGrid, sha256Hex } from '@troupe/kernel/util';
import { type Clock, formatIssues, type Logger, silentLogger, systemClock } from '@troupe/kernel';
import type * as z from 'zod';
import { DioError } from './errors.js';
import { type FetchLike, type JsonRequest, requestJson } from './http-request.js';
import { retryWithinBudget } from './retry.js';
import {
  AcceptanceSchema,
  type ActivePrompt,
  ActivePromptSchema,
  type DioTaskStatus,
  deriveDioIds,
  type ForkResult,
  ForkResultSchema,
  MAX_COMPILED_PROMPT_CHARS,
  type RevokeResult,
  RevokeResultSchema,
  ScheduleRequestSchema,
  TaskStatusSchema,
} from './wire.js';

/** The 16-minute background budget of {@link DioClient.waitForTerminal}. */
export const DEFAULT_WAIT_BUDGET_MS = 16 * 60 * 1000;
/** Polling interval of {@link DioClient.waitForTerminal}. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;

/** Injectable ports of {@link DioClient}. */
export interface DioClientOptions {
  /** HTTP client (default: global `fetch`). */
  readonly fetch?: FetchLike;
  /** Time source for timeouts, retries and polling (default: the system clock). */
  readonly clock?: Clock;
  /** Diagnostics; every client call writes exactly one line. The authorization header is never logged. */
  readonly logger?: Logger;
  /** Total time for one `schedule` call including retries of transient failures (default 3 × request timeout). */
  readonly retryBudgetMs?: number;
}

/** What {@link DioClient.schedule} submits (the seed's `DioTool.schedule` input). */
export interface DioScheduleInput {
  /** The RP turn's request id; the DIO ids are derived from it. */
  readonly actorTurnRequestId: string;
  readonly userId: string;
  readonly rpConversationId: string;
  readonly targetPromptId: string;
  /** The player's raw input, never model-written text. */
  readonly instruction: string;
  /** BCP-47 language tag, e.g. `zh`. */
  readonly language: string;
  /** The player's `Authorization` header, forwarded as is. */
  readonly userAuthorization?: string;
}

/** A verified acceptance. */
export interface DioAcceptance {
  readonly accepted: true;
  readonly dioConversationId: string;
  readonly requestId: string;
  readonly taskMessageId: string;
  /** The requirement applies to later turns; it is not a promise about the very next one. */
  readonly appliesFrom: 'next_turn';
}

/** Options of {@link DioClient.waitForTerminal}. */
export interface WaitOptions {
  readonly signal?: AbortSignal;
  /** Total wait (default 16 minutes). */
  readonly budgetMs?: number;
  /** Poll interval (default 1 s). */
  readonly intervalMs?: number;
  readonly userAuthorization?: string;
}

/** Which active prompt to read. */
export interface ActivePromptQuery {
  readonly userId: string;
  readonly rpConversationId: string;
  readonly targetPromptId: string;
  readonly userAuthorization?: string;
}

/** Which conversation to fork into which (see {@link DioClient.forkConversation}). */
export interface ForkConversationInput {
  readonly userId: string;
  readonly targetPromptId: string;
  /** The parent RP conversation. */
  readonly fromRpConversationId: string;
  /** The branched RP conversation. */
  readonly toRpConversationId: string;
  /** Keep only the requirements submitted with these DIO request ids (those the branch point had). */
  readonly keepRequestIds?: readonly string[];
  readonly userAuthorization?: string;
}

/** Options of {@link DioClient.activePrompt}. */
export interface LookupOptions {
  readonly signal?: AbortSignal;
  /** Total time including retries (default: the client's request timeout). */
  readonly timeoutMs?: number;
}

/**
 * Client of a DIO (director instruction) service — the seed's `DioTool`. Every response is
 * validated with zod, every echoed id is checked, the compiled prompt's SHA-256 is recomputed,
 * and failures are {@link DioError}s classified as permanent or transient.
 * @example
 * ```ts
 * const dio = new DioClient('http://127.0.0.1:8787', 5_000);
 * const accepted = await dio.schedule({ actorTurnRequestId: 'rp-turn-101', userId: 'user-42',
 *   rpConversationId: 'conversation-8', targetPromptId: 'lia-character',
 *   instruction: '从现在起莉娅都用短句回答，少用比喻。', language: 'zh', userAuthorization }, signal);
 * ```
 */
export class DioClient {
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #fetch: FetchLike;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retryBudgetMs: number;

  /**
   * @param baseUrl - the service root, e.g. `http://127.0.0.1:8787`
   * @param requestTimeoutMs - timeout of one HTTP request
   * @param options - injectable fetch, clock and logger
   * @throws {DioError} DIO_INVALID_REQUEST for a non-http(s) URL or a non-positive timeout
   */
  constructor(baseUrl: string, requestTimeoutMs: number, options: DioClientOptions = {}) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch (cause) {
      throw new DioError('DIO_INVALID_REQUEST', `The DIO base URL ${JSON.stringify(baseUrl)} is not a URL`, { cause });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DioError('DIO_INVALID_REQUEST', `The DIO base URL must be http(s), got ${url.protocol}`);
    if (!Number.isFinite(requestTimeoutMs) || requestTimeoutMs <= 0) throw new DioError('DIO_INVALID_REQUEST', 'requestTimeoutMs must be a positive number');
    this.#baseUrl = url.href.replace(/\/+$/, '');
    this.#timeoutMs = requestTimeoutMs;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#retryBudgetMs = options.retryBudgetMs ?? requestTimeoutMs * 3;
  }

  /**
   * Submits a lasting requirement (`POST /v1/chat`). Transient failures are retried within the
   * retry budget (the service deduplicates by request id).
   * @param input - ids, the raw player input, language and the player's authorization header
   * @param signal - cancels the call
   * @param options - `budgetMs`: total time for this call, retries included (default: the client's retry budget)
   * @returns the verified acceptance
   * @throws {DioError} DIO_INVALID_REQUEST, DIO_IDENTITY_MISMATCH, DIO_INVALID_RESPONSE, DIO_HTTP_*, DIO_NETWORK, DIO_TIMEOUT
   */
  async schedule(input: DioScheduleInput, signal: AbortSignal = new AbortController().signal, options: { readonly budgetMs?: number } = {}): Promise<DioAcceptance> {
    const ids = deriveDioIds(input.rpConversationId, input.actorTurnRequestId);
    const fields = { operation: 'schedule', requestId: ids.requestId, targetPromptId: input.targetPromptId };
    return this.#logged(fields, signal, async () => {
      const body = parseOrThrow(ScheduleRequestSchema, {
        ...ids,
        userId: input.userId,
        rpConversationId: input.rpConversationId,
        targetPromptId: input.targetPromptId,
        message: input.instruction,
        language: input.language,
      });
      // Each try gets its own request timeout (never more than the budget left), so a hanging
      // service leaves room for a retry instead of eating the whole budget in one request.
      const { json } = await retryWithinBudget(this.#clock, options.budgetMs ?? this.#retryBudgetMs, signal, (remainingMs) =>
        requestJson({
          ...this.#base('POST', '/v1/chat', input.userAuthorization, signal, Math.min(this.#timeoutMs, remainingMs), 'schedule'),
          body,
        }),
      );
      const accepted = parseResponse(AcceptanceSchema, json, 'schedule');
      const expected = { conversationId: ids.conversationId, targetPromptId: input.targetPromptId, taskMessageId: ids.messageId, requestId: ids.requestId };
      for (const [field, value] of Object.entries(expected)) {
        const echoed = accepted[field as keyof typeof expected];
        if (echoed !== value) {
          throw new DioError('DIO_IDENTITY_MISMATCH', `schedule: the service accepted ${field} ${JSON.stringify(echoed)}, expected ${JSON.stringify(value)}`, {
            operation: 'schedule',
          });
        }
      }
      return { accepted: true, dioConversationId: accepted.conversationId, requestId: accepted.requestId, taskMessageId: accepted.taskMessageId, appliesFrom: 'next_turn' };
    });
  }

  /**
   * Polls `GET /v1/director/tasks/by-request/{requestId}` on a fixed grid (t = 0, interval,
   * 2 × interval …), at most one request in flight, until the task is terminal. A poll that
   * answers after one or more grid points have passed skips them: the next poll starts at the
   * first grid point not before its answer, so there is never a catch-up burst. A transient
   * failure is just a missed poll (after a `Retry-After`, the next poll is the first grid point
   * after it, still within the budget); a permanent one ends the wait. A `succeeded` task may still
   * have `promptChanged: false`.
   * @param requestId - the DIO request id (`<turnRequestId>:dio`)
   * @param options - signal, budget (16 min), interval (1 s), authorization
   * @returns the terminal task status
   * @throws {DioError} DIO_WAIT_BUDGET_EXHAUSTED (last failure as `cause`), DIO_HTTP_PERMANENT, DIO_INVALID_RESPONSE, DIO_IDENTITY_MISMATCH
   */
  async waitForTerminal(requestId: string, options: WaitOptions = {}): Promise<DioTaskStatus> {
    const signal = options.signal ?? new AbortController().signal;
    const budgetMs = options.budgetMs ?? DEFAULT_WAIT_BUDGET_MS;
    const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const path = `/v1/director/tasks/by-request/${encodeURIComponent(requestId)}`;
    let polls = 0;
    return this.#logged({ operation: 'waitForTerminal', requestId }, signal, async () => {
      let lastFailure: unknown;
      // The grid and the budget are an Effect schedule in the kernel's `pollOnGrid`: t = 0, 1, 2 … s
      // from the start, not "1 s after the answer", so a slow service never stretches the number of
      // polls past budget / interval + 1; grid points missed during a slow poll are skipped.
      const outcome = await pollOnGrid<DioTaskStatus>({
        clock: this.#clock,
        signal,
        intervalMs,
        budgetMs,
        poll: async (remainingMs) => {
          polls += 1;
          try {
            const { json } = await requestJson(this.#base('GET', path, options.userAuthorization, signal, Math.min(this.#timeoutMs, remainingMs), 'waitForTerminal'));
            const task = parseResponse(TaskStatusSchema, json, 'waitForTerminal');
            if (task.requestId !== requestId) {
              throw new DioError('DIO_IDENTITY_MISMATCH', `waitForTerminal: asked for ${JSON.stringify(requestId)}, got ${JSON.stringify(task.requestId)}`, {
                operation: 'waitForTerminal',
              });
            }
            return task.status === 'processing' ? { done: false } : { done: true, value: task };
          } catch (error) {
            // A transient failure is a missed poll; anything else ends the wait. A `Retry-After`
            // (429/503) is honoured: the next poll is the first grid point after it, within the budget.
            if (signal.aborted || !DioError.isInstance(error) || error.failureClass !== 'transient') throw error;
            lastFailure = error;
            const asked = error.details?.retryAfterMs;
            return typeof asked === 'number' ? { done: false, notBeforeMs: asked } : { done: false };
          }
        },
      });
      if (outcome.done) return outcome.value;
      throw new DioError('DIO_WAIT_BUDGET_EXHAUSTED', `waitForTerminal: ${requestId} was not terminal after ${budgetMs} ms (${polls} polls)`, {
        operation: 'waitForTerminal',
        ...(lastFailure === undefined ? {} : { cause: lastFailure }),
      });
    }, () => ({ polls }));
  }

  /**
   * Reads the active compiled prompt (`GET /v1/director/active-prompt`) and verifies its SHA-256
   * over the UTF-8 bytes of `compiledPrompt` (hex in either case; returned lower-case).
   * @param query - user, RP conversation and target prompt
   * @param options - signal and total timeout
   * @returns the verified prompt, or `undefined` when the service has none (404)
   * @throws {DioError} DIO_HASH_MISMATCH, DIO_INVALID_RESPONSE, DIO_HTTP_*, DIO_NETWORK, DIO_TIMEOUT
   */
  async activePrompt(query: ActivePromptQuery, options: LookupOptions = {}): Promise<ActivePrompt | undefined> {
    const signal = options.signal ?? new AbortController().signal;
    const params = new URLSearchParams({ userId: query.userId, conversationId: query.rpConversationId, targetPromptId: query.targetPromptId });
    const fields = { operation: 'activePrompt', rpConversationId: query.rpConversationId, targetPromptId: query.targetPromptId };
    return this.#logged(fields, signal, async () => {
      const budget = options.timeoutMs ?? this.#timeoutMs;
      const { status, json } = await retryWithinBudget(this.#clock, budget, signal, (remainingMs) =>
        requestJson({
          ...this.#base('GET', `/v1/director/active-prompt?${params}`, query.userAuthorization, signal, Math.min(this.#timeoutMs, remainingMs), 'activePrompt'),
          passStatuses: [404],
        }),
      );
      if (status === 404) return undefined;
      const prompt = parseResponse(ActivePromptSchema, json, 'activePrompt');
      if (prompt.compiledPrompt.length > MAX_COMPILED_PROMPT_CHARS) {
        throw new DioError(
          'DIO_INVALID_RESPONSE',
          `activePrompt: version ${prompt.versionId} has ${prompt.compiledPrompt.length} characters, more than the ${MAX_COMPILED_PROMPT_CHARS} a compiled character prompt may have; the turn uses the normal character prompt (revoke requirements to shorten it)`,
          { operation: 'activePrompt' },
        );
      }
      const actual = sha256Hex(prompt.compiledPrompt);
      if (actual !== prompt.compiledPromptSha256) {
        throw new DioError('DIO_HASH_MISMATCH', `activePrompt: version ${prompt.versionId} claims SHA-256 ${prompt.compiledPromptSha256}, the text hashes to ${actual}`, {
          operation: 'activePrompt',
        });
      }
      return prompt;
    });
  }

  /**
   * Revokes one lasting requirement (`DELETE /v1/director/requirements/{id}`); the service
   * recompiles the prompt. Not retried: a revocation is a player's action, answered at once.
   * @param query - user, RP conversation and target prompt
   * @param requirementId - the requirement (as listed by the service)
   * @param options - signal and timeout
   * @returns whether the prompt changed, the new version, and what was revoked
   * @throws {DioError} DIO_HTTP_PERMANENT (e.g. 404 no such requirement), DIO_INVALID_RESPONSE, DIO_HTTP_TRANSIENT, DIO_NETWORK, DIO_TIMEOUT
   */
  async revokeRequirement(query: ActivePromptQuery, requirementId: string, options: LookupOptions = {}): Promise<RevokeResult> {
    const signal = options.signal ?? new AbortController().signal;
    const params = new URLSearchParams({ userId: query.userId, conversationId: query.rpConversationId, targetPromptId: query.targetPromptId });
    const fields = { operation: 'revoke', rpConversationId: query.rpConversationId, targetPromptId: query.targetPromptId, requirementId };
    return this.#logged(fields, signal, async () => {
      const path = `/v1/director/requirements/${encodeURIComponent(requirementId)}?${params}`;
      const { json } = await requestJson(this.#base('DELETE', path, query.userAuthorization, signal, options.timeoutMs ?? this.#timeoutMs, 'revoke'));
      return parseResponse(RevokeResultSchema, json, 'revoke');
    });
  }

  /**
   * Forks a DIO conversation for a branched RP session (`POST /v1/director/conversations/fork`):
   * the new conversation starts with the parent's kept requirements and their compiled prompt.
   * @param input - user, target prompt, both conversations and the request ids to keep
   * @param options - signal and total timeout (transient failures retried within it)
   * @returns the requirements the new conversation holds and its version
   * @throws {DioError} DIO_UNSUPPORTED (the service answers 404/405: it has no fork endpoint),
   * DIO_HTTP_PERMANENT (e.g. 409: the new conversation already has other requirements), DIO_INVALID_RESPONSE, DIO_HTTP_TRANSIENT, DIO_NETWORK, DIO_TIMEOUT
   */
  async forkConversation(input: ForkConversationInput, options: LookupOptions = {}): Promise<ForkResult> {
    const signal = options.signal ?? new AbortController().signal;
    const fields = { operation: 'fork', rpConversationId: input.toRpConversationId, targetPromptId: input.targetPromptId };
    return this.#logged(fields, signal, async () => {
      const body = {
        userId: input.userId,
        targetPromptId: input.targetPromptId,
        fromConversationId: input.fromRpConversationId,
        toConversationId: input.toRpConversationId,
        ...(input.keepRequestIds ? { keepRequestIds: input.keepRequestIds } : {}),
      };
      const { status, json } = await retryWithinBudget(this.#clock, options.timeoutMs ?? this.#retryBudgetMs, signal, (remainingMs) =>
        requestJson({
          ...this.#base('POST', '/v1/director/conversations/fork', input.userAuthorization, signal, Math.min(this.#timeoutMs, remainingMs), 'fork'),
          body,
          passStatuses: [404, 405],
        }),
      );
      if (status === 404 || status === 405) {
        throw new DioError('DIO_UNSUPPORTED', `fork: the DIO service has no fork endpoint (HTTP ${status}); the branched session starts without the parent's lasting requirements`, {
          operation: 'fork',
          status,
        });
      }
      return parseResponse(ForkResultSchema, json, 'fork');
    });
  }

  #base(method: 'GET' | 'POST' | 'DELETE', path: string, authorization: string | undefined, signal: AbortSignal, timeoutMs: number, operation: string): JsonRequest {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    return {
      fetch: this.#fetch,
      clock: this.#clock,
      url: `${this.#baseUrl}${path}`,
      method,
      headers,
      timeoutMs,
      signal,
      operation,
    };
  }

  // Exactly one log line per call, whatever the outcome; never the authorization header.
  async #logged<T>(fields: Record<string, unknown>, signal: AbortSignal, run: () => Promise<T>, extra: () => Record<string, unknown> = () => ({})): Promise<T> {
    const started = this.#clock.now();
    try {
      const result = await run();
      this.#logger.debug(`dio ${fields.operation} ok`, { ...fields, ...extra(), ms: this.#clock.now() - started });
      return result;
    } catch (error) {
      if (signal.aborted) {
        this.#logger.debug(`dio ${fields.operation} cancelled`, { ...fields, ...extra() });
        throw abortReason(signal);
      }
      const failureClass = DioError.isInstance(error) ? error.failureClass : 'permanent';
      this.#logger.warn(`dio ${fields.operation} failed`, { ...fields, ...extra(), failureClass, error: describeError(error) });
      throw error;
    }
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new DioError('DIO_INVALID_REQUEST', `schedule: invalid input (${formatIssues(parsed.error, { root: 'input' })})`, { operation: 'schedule' });
}

function parseResponse<S extends z.ZodType>(schema: S, value: unknown, operation: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new DioError('DIO_INVALID_RESPONSE', `${operation}: the response does not match the DIO wire format (${formatIssues(parsed.error, { root: 'body' })})`, {
    operation,
  });
}
