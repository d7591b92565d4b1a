import { formatIssues } from '../errors/format-issues.js';
import { followSignals, linkedController } from '../abort.js';
import type { BackgroundTasks } from '../background/background-tasks.js';
import type { FiberScope } from '../background/fiber-scope.js';
import { runDirector, type DirectorSettings } from '../director/director-loop.js';
import type { ToolExecutor } from '../director/tool-executor.js';
import { describeError, KernelError } from '../errors.js';
import type { HarnessOptions, RunTurnOptions, TurnResult } from '../harness/harness-options.js';
import type { HookRegistry } from '../hooks/hook-registry.js';
import { runIsolated, runSeries, runWaterfall, type HookRunnerSettings } from '../hooks/hook-runner.js';
import type { CommittedTurn, PreparedActorPrompt } from '../hooks/hook-types.js';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { SessionEvent, SessionLog } from '../ports/session-log.js';
import type { HeldSessionTurn } from '../ports/session-turn-lock.js';
import type { HistoryCache } from './history-cache.js';
import type { TokenCounters } from '../budget/token-counter.js';
import { contextKeys } from '../context-keys.js';
import { type FinishedCommits, POST_REVIEW_DONE, postReviewDoneKey, TURN_COMMITTED_KEY } from './finish-committed-turn.js';
import { TURN_COMMITTED, type TurnCommittedData } from './session-history.js';
import { type ActorSampling, plainTurnInput, TurnInputSchema, type Scenario, type TurnInput } from './turn-input.js';
import { LazyAbortController } from './lazy-abort-controller.js';
import { TurnState } from './turn-state.js';
import type { TurnDeadlines } from './turn-deadlines.js';
import { replyTooLarge, type TurnLimits } from './turn-limits.js';

/** What a turn needs from the harness. */
export interface TurnServices {
  readonly hooks: HookRegistry;
  readonly tools: ToolExecutor;
  readonly models: ModelRegistry;
  readonly sessionLog: SessionLog;
  readonly histories: HistoryCache;
  readonly tokenCounters: TokenCounters;
  readonly maxHistoryTurns: number;
  readonly clock: Clock;
  readonly background: BackgroundTasks;
  readonly runner: HookRunnerSettings;
  readonly director: DirectorSettings;
  readonly scenario: Scenario;
  readonly logger: Logger;
  readonly generateTurnId: NonNullable<HarnessOptions['generateTurnId']>;
  /**
   * Where a committed turn's postReview work runs: a fiber in the harness's scope, which
   * `close()` drains within its grace and interrupts after it (the work's signal aborts first).
   */
  readonly committedWork: FiberScope;
  /** Commits whose postReview work is known done (spares a lookup before each turn). */
  readonly finishedCommits: FinishedCommits;
  readonly limits: TurnLimits;
  /** The harness's turn deadlines (`limits.turnDeadlineMs`), one wake-up for all running turns. */
  readonly deadlines: TurnDeadlines;
}

/**
 * Validates turn input with the kernel schema.
 * @throws {KernelError} KERNEL_TURN_INPUT_INVALID naming every bad field
 */
export function parseTurnInput(input: unknown): TurnInput {
  const plain = plainTurnInput(input);
  if (plain) return plain;
  const parsed = TurnInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new KernelError('KERNEL_TURN_INPUT_INVALID', `Invalid turn input: ${formatIssues(parsed.error, { root: 'input' })}`, {
    details: { issues: parsed.error.issues.map((issue) => formatIssues([issue], { root: 'input' })) },
  });
}

/**
 * Runs one turn through the lifecycle. Cancellation rule: once the signal aborts before the
 * commit, the turn rejects with the abort reason, nothing more is written, and background tasks it
 * started are aborted. From the commit on the caller can no longer cancel it: its postReview work
 * runs as a fiber in the harness's scope and finishes (only the harness's close grace cuts it
 * short, and then the session's next turn or the next start finishes it from the log, see
 * `finish-committed-turn.ts`). The turn's deadline (`limits.turnDeadlineMs`, start to commit) aborts it the same way
 * but rejects with `KERNEL_TURN_DEADLINE_EXCEEDED` and records a `kernel/turn-failed` event; an
 * actor reply over `limits.maxReplyChars` ends it with `KERNEL_REPLY_TOO_LARGE`. Neither commits.
 */
export async function runTurn(
  services: TurnServices,
  input: TurnInput,
  options: RunTurnOptions,
  continuation?: TurnContinuation,
  heldTurn?: HeldSessionTurn,
): Promise<TurnResult> {
  // The turn's own checks read `turn.aborted`; its AbortSignal is made only when something listens.
  const turn = new LazyAbortController();
  const unlinkCaller = options.signal ? followSignals(turn, [options.signal]) : noop;
  const turnId = input.turnId ?? services.generateTurnId();
  const step = input.step ?? 0;
  const scenario: Scenario = { ...services.scenario, ...input.scenario };
  let committed = false;
  let commitFailed = false;
  let state: TurnState | undefined;
  const deadline = services.deadlines.arm(turn);
  try {
    if (turn.aborted) throw turn.reason;
    const { messages: history, omitted } = await services.histories.history(input.sessionId, turnId, services.maxHistoryTurns);
    if (turn.aborted) throw turn.reason;
    const tokenBudget = { ...services.scenario.tokenBudget, ...input.scenario?.tokenBudget };
    state = new TurnState({
      turnId,
      sessionId: input.sessionId,
      step,
      input,
      scenario,
      history,
      abort: turn,
      sessionLog: services.sessionLog,
      models: services.models,
      clock: services.clock,
      background: services.background,
      onQueued: options.onEvent,
    });
    const actorModel = services.models.resolve(scenario.actorModel);
    state.values.set(contextKeys.tokenBudget.id, services.tokenCounters.forTurn(actorModel, tokenBudget, omitted));
    if (continuation) state.values.set(contextKeys.continuation.id, Object.freeze({ step: continuation.step, reply: continuation.reply }));

    if (scenario.preActorDirector && !services.tools.isEmpty) {
      // Raced against the signal: a model that ignores its signal cannot hold the turn past its deadline.
      await turn.race(
        runDirector(state, services.tools, services.models, services.director, {
          kernel: services.logger,
          forPlugin: (plugin) => services.runner.loggers.get(plugin) ?? services.logger,
        }),
      );
    }
    // The hook runners hand back a plain value when every handler answered synchronously: no wait.
    const preActor = runSeries(services.hooks.get('preActor'), input.text, state, services.runner);
    if (preActor) await preActor;

    // A continuation ends the prompt with the reply so far, so the actor extends it; its text is
    // appended as is (SillyTavern's "continue": the model writes the spacing it means).
    const messages: ChatMessage[] = [...history, { role: 'user', content: input.text }];
    if (continuation) messages.push({ role: 'assistant', content: continuation.reply });
    const initial: PreparedActorPrompt = { history: messages };
    let prepared = runWaterfall(services.hooks.get('actorAssemble'), initial, state, services.runner);
    if (prepared instanceof Promise) prepared = await prepared;

    const request = actorRequest(prepared, turn, input.sessionId, turnId, tokenBudget.responseTokens, input.scenario?.actorSampling);
    const answering = callActor(actorModel, request, turn, options, services.limits.maxReplyChars);
    // Raced against the turn: a model that ignores its signal cannot hold the turn past its
    // deadline (the race needs no AbortSignal, so an in-process model's turn still makes none).
    const actor = await turn.race(answering);
    if (actor.usage?.inputTokens) learnTokenCounts(state, services.tokenCounters.calibrate(actorModel, prepared.history, actor.usage.inputTokens), actor.usage.inputTokens);

    const actorText = continuation ? continuation.reply + continuationJoin(state) + actor.text : actor.text;
    let reviewed = runWaterfall(services.hooks.get('review'), { text: actorText }, state, services.runner);
    if (reviewed instanceof Promise) reviewed = await reviewed;
    // Another process may own the session now (our lease ran out while we stalled): never commit beside it.
    if (heldTurn) await heldTurn.assertHeld(`committing turn "${turnId}" of session "${input.sessionId}"`);
    // From here on the turn commits: the deadline no longer applies (never half-committed).
    deadline.disarm();
    if (turn.aborted) throw turn.reason;

    // The point of no return (no await since the check above): from here the caller's signal (a
    // closed browser tab) no longer cancels anything; only the harness's close grace does (it
    // aborts `turn` through the postReview fiber below).
    unlinkCaller();
    const commit = commitData(input.text, reviewed.text, continuation, actor);
    state.queue(TURN_COMMITTED, commit, COMMIT_OPTIONS);
    const storing = state.flush();
    // What postReview handlers see of the turn, the commit event aside (added once it is stored).
    const turnFields: Omit<CommittedTurn, 'commitEvent'> = actor.usage
      ? { turnId, sessionId: input.sessionId, step, input: input.text, reply: reviewed.text, prepared, usage: actor.usage }
      : { turnId, sessionId: input.sessionId, step, input: input.text, reply: reviewed.text, prepared };
    const { duringCommit, afterCommit } = services.hooks.postReviewPhases;
    // Handlers registered with `duringCommit` start now, while the commit is being stored.
    if (duringCommit.length > 0) state.holdReports();
    const postReviewWork = duringCommit.length === 0 ? undefined : startPostReview(services, turn, state, storing, turnFields);
    let commitEvents: readonly SessionEvent[];
    try {
      commitEvents = await storing;
    } catch (error) {
      if (postReviewWork) {
        // The turn does not commit: what started during the commit stops, and nothing it queued is written.
        commitFailed = true;
        turn.abort(error);
        state.queued = [];
        state.releaseReports(false);
      }
      throw error;
    }
    committed = true;
    // Live progress hears of the commit only now that it is in the log: a player told "saved"
    // (the web app's Stop turns into "Saved") never loses that reply to a crash a moment later.
    options.onEvent?.({ type: TURN_COMMITTED, data: commit });
    if (postReviewWork) state.releaseReports(true);
    state.releaseBackground();
    // The turn is durable now: its background work no longer depends on the turn's signal.
    const commitEvent = lastEvent(commitEvents);

    const committedState = state;
    const { postReviewErrors, laterEvents } = postReviewWork
      ? await postReviewWork
      : afterCommit.length === 0
        ? { postReviewErrors: [], laterEvents: await state.flush() }
        : await services.committedWork.run(
            turn,
            async () => recordPostReviewDone(services, committedState, turnFields, commitEvent, await runIsolated(afterCommit, { ...turnFields, commitEvent }, committedState, services.runner)),
            POST_REVIEW_PROBE_JOBS,
          );
    const result: Mutable<TurnResult> = { turnId, sessionId: input.sessionId, step, reply: reviewed.text, prepared, events: commitEvents.concat(laterEvents), postReviewErrors };
    if (actor.usage) result.usage = actor.usage;
    if (actor.reasoning) result.reasoning = actor.reasoning;
    return result;
  } catch (error) {
    // A commit that failed is a failure even though the turn is aborted (to stop what started
    // during it), whether by that failure or by close() cutting that work short first.
    if (turn.aborted && !commitFailed) {
      if (!committed) for (const task of state?.startedTasks ?? []) task.abort(turn.reason);
      // Ran out of time (not cancelled by the caller): a failure like any other, recorded and coded.
      if (deadline.fired && !committed && !options.signal?.aborted) {
        if (state) await recordFailure(state, deadline.error, services.logger);
        throw deadline.error;
      }
      throw turn.reason;
    }
    if (state && !committed) await recordFailure(state, error, services.logger);
    throw error;
  } finally {
    deadline.disarm();
    // After the failure record or the abort of its tasks: their appends go on (or are dropped).
    state?.releaseBackground();
    unlinkCaller();
  }
}

function noop(): void {}

/** What a committed turn's postReview work hands back to the turn. */
interface PostReviewOutcome {
  readonly postReviewErrors: readonly KernelError[];
  readonly laterEvents: readonly SessionEvent[];
}

/**
 * Starts a turn's postReview work while its commit is being stored (`storing`): the `duringCommit`
 * handlers at once, the others once the commit is stored (beside those still running), then
 * `kernel/post-review-done` with what they all queued (failures: the `duringCommit` handlers'
 * first). Rejects with the storage failure when the commit fails (the caller aborts the turn then,
 * which stops the handlers that started).
 */
function startPostReview(
  services: TurnServices,
  turn: LazyAbortController,
  state: TurnState,
  storing: Promise<readonly SessionEvent[]>,
  fields: Omit<CommittedTurn, 'commitEvent'>,
): Promise<PostReviewOutcome> {
  const stored = storing.then(lastEvent);
  stored.catch(noop); // a handler that never looks at `stored` leaves no unhandled rejection
  const { duringCommit, afterCommit } = services.hooks.postReviewPhases;
  const work = services.committedWork.run(
    turn,
    async () => {
      const early = Promise.resolve(runIsolated(duringCommit, { ...fields, stored }, state, services.runner));
      early.catch(noop); // awaited below, unless the commit fails first
      const commitEvent = await stored;
      // The other handlers start now and run beside those still running (postReview is parallel).
      const later = runIsolated(afterCommit, { ...fields, commitEvent }, state, services.runner);
      const [earlyErrors, laterErrors] = await Promise.all([early, later]);
      return recordPostReviewDone(services, state, fields, commitEvent, earlyErrors.concat(laterErrors));
    },
    POST_REVIEW_PROBE_JOBS,
  );
  work.catch(noop); // the turn rethrows the commit's failure itself
  return work;
}

/** Queues `kernel/post-review-done` after the handlers' own events, writes them, and remembers the commit as finished. */
async function recordPostReviewDone(
  services: TurnServices,
  state: TurnState,
  fields: Pick<CommittedTurn, 'turnId' | 'sessionId' | 'step'>,
  commitEvent: SessionEvent,
  errors: readonly KernelError[],
): Promise<PostReviewOutcome> {
  // Written with the handlers' own events, so "done" and what they recorded land together.
  state.queue(POST_REVIEW_DONE, { failed: errors.length }, { key: postReviewDoneKey(fields.turnId, fields.step) });
  const laterEvents = await state.flush();
  services.finishedCommits.mark(fields.sessionId, commitEvent);
  return { postReviewErrors: errors, laterEvents };
}

function lastEvent(events: readonly SessionEvent[]): SessionEvent {
  const last = events[events.length - 1];
  if (!last) throw new Error('session log returned no events for the commit');
  return last;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const COMMIT_OPTIONS = Object.freeze({ ignorable: false, key: TURN_COMMITTED_KEY, quiet: true });

/** The `kernel/turn-committed` payload, fields in their stored order, optional ones only when set. */
function commitData(input: string, reply: string, continuation: TurnContinuation | undefined, actor: ChatResponse): TurnCommittedData & { usage?: ChatResponse['usage'] } {
  const data: Mutable<TurnCommittedData & { usage?: ChatResponse['usage'] }> = { input, reply };
  if (continuation) data.continuedFrom = continuation.step;
  if (actor.usage) data.usage = actor.usage;
  if (actor.reasoning) data.reasoning = actor.reasoning;
  return data;
}

// Promise jobs a committed turn's postReview work (handlers, then one append) takes when nothing
// in it waits on I/O: within them it needs no fiber (see `FiberScope.run`). The story plugin's
// settlement (a continuity stage call, the workspace append, its events) takes about 18 on
// in-memory stores; the room above that is cheap (a probe job is a fraction of a microsecond and
// work that waits on I/O runs its first jobs meanwhile), a fiber per turn is not (~50 µs).
const POST_REVIEW_PROBE_JOBS = 64;

/** A `continue` turn: the step being extended and its visible reply. */
export interface TurnContinuation {
  readonly step: number;
  readonly reply: string;
}

/** Warns (an ignorable event) when the server counted far fewer prompt tokens than were sent. */
function learnTokenCounts(state: TurnState, result: ReturnType<TokenCounters['calibrate']>, reported: number): void {
  if (!result?.truncationSuspected) return;
  state.queue('kernel/prompt-truncation-suspected', { sentTokens: result.counted, reportedTokens: reported }, { ignorable: true });
}

/** Writes what a failed turn queued, plus a `kernel/turn-failed` event, for diagnosis. */
async function recordFailure(state: TurnState, error: unknown, logger: Logger): Promise<void> {
  state.queue('kernel/turn-failed', { error: describeError(error), ...(KernelError.isInstance(error) ? { plugin: error.plugin, hook: error.hook } : {}) });
  try {
    await state.flush();
  } catch (flushError) {
    logger.error('could not record a failed turn', { error: describeError(flushError) });
  }
}

/**
 * The actor's request. Its `signal` is the turn's, read through a getter: the turn's AbortSignal
 * is made when the model reads it (an HTTP model always does; an in-process one that answers at
 * once may never), and spreading the request (`{ ...request }`) reads it like any property. The
 * turn's sampling (`scenario.actorSampling`, parsed: its fields are the request's own) is spread in.
 */
function actorRequest(prepared: PreparedActorPrompt, turn: LazyAbortController, sessionId: string, turnId: string, maxOutputTokens: number | undefined, sampling: ActorSampling | undefined): ChatRequest {
  const meta = { stage: 'actor', sessionId, turnId };
  if (sampling !== undefined) {
    return {
      messages: prepared.history,
      get signal(): AbortSignal {
        return turn.signal;
      },
      meta,
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      ...sampling,
    };
  }
  if (maxOutputTokens === undefined) {
    return {
      messages: prepared.history,
      get signal(): AbortSignal {
        return turn.signal;
      },
      meta,
    };
  }
  return {
    messages: prepared.history,
    get signal(): AbortSignal {
      return turn.signal;
    },
    meta,
    maxOutputTokens,
  };
}

/**
 * Calls the actor model, streaming when the model can; wraps failures as KERNEL_MODEL_FAILED. A
 * reply over `maxReplyChars` stops the call (its own signal is aborted) with KERNEL_REPLY_TOO_LARGE.
 */
async function callActor(model: ChatModel, request: ChatRequest, turn: LazyAbortController, options: RunTurnOptions, maxReplyChars: number): Promise<ChatResponse> {
  const streaming = model.stream !== undefined && (options.onReplyDelta !== undefined || options.onReasoningDelta !== undefined);
  // Only a stream can be cut when the reply grows too large: a whole answer has already arrived,
  // so `generate` gets the turn's signal as is (no controller or listener per turn).
  const link = streaming ? linkedController(request.signal) : undefined;
  const call = link ? { ...request, signal: link.controller.signal } : request;
  // Built only when a reply is too large: an error (and its stack) per turn is measurable overhead.
  let tooLargeError: KernelError | undefined;
  const tooLarge = () => {
    tooLargeError ??= replyTooLarge(model.id, maxReplyChars);
    return tooLargeError;
  };
  let response: ChatResponse;
  try {
    response = streaming ? await streamActor(model, call, options, maxReplyChars, tooLarge) : await model.generate(call);
    if (response.text.length > maxReplyChars) throw tooLarge();
  } catch (error) {
    if (turn.aborted) throw turn.reason;
    if (error !== undefined && error === tooLargeError) {
      // Ends the model's request too: a cut reply must not keep downloading.
      link?.controller.abort(error);
      throw error;
    }
    throw new KernelError('KERNEL_MODEL_FAILED', `The actor model "${model.id}" failed: ${describeError(error).message}`, { cause: error });
  } finally {
    link?.dispose();
  }
  // Never commit a blank reply: the player would see an empty message, and the next turn's actor
  // an empty answer in its history. The player's line stays theirs to send again.
  if (response.text.trim() === '') throw blankReply(model.id, response);
  return response;
}

// Why an answer had no reply: the model only thought (any provider, not only ours), a content
// filter stopped it, or it said nothing (a tool call only, whitespace).
function blankReply(modelId: string, response: ChatResponse): KernelError {
  const finish = response.finishReason ? { finishReason: response.finishReason } : {};
  if (response.reasoning?.trim()) {
    return new KernelError('KERNEL_MODEL_FAILED', `The actor model "${modelId}" answered with reasoning only and no reply.`, { details: { reason: 'reasoning-only', ...finish } });
  }
  const filtered = response.finishReason === 'content_filter' || response.finishReason === 'content-filter';
  const why = filtered ? "the server's content filter stopped it" : 'the model answered with no text';
  return new KernelError('KERNEL_MODEL_FAILED', `The actor model "${modelId}" gave an empty reply (${why}); nothing was committed.`, { details: { reason: 'empty', ...finish } });
}

async function streamActor(model: ChatModel, request: ChatRequest, options: RunTurnOptions, maxReplyChars: number, tooLarge: () => KernelError): Promise<ChatResponse> {
  let text = '';
  let reasoning = '';
  for await (const part of model.stream!(request)) {
    if (part.type === 'text-delta') {
      text += part.text;
      if (text.length > maxReplyChars) throw tooLarge();
      options.onReplyDelta?.(part.text);
    } else if (part.type === 'reasoning-delta') {
      reasoning += part.text;
      // Reasoning counts too: an endless "thinking" stream is as unbounded as an endless reply.
      if (reasoning.length > maxReplyChars) throw tooLarge();
      options.onReasoningDelta?.(part.text);
    } else {
      // The finish response is authoritative (a provider may learn late that text was reasoning).
      return { ...part.response, text: part.response.text || (part.response.reasoning === undefined ? text : '') };
    }
  }
  return { text, ...(reasoning ? { reasoning } : {}) };
}

// What a plugin put between the kept reply and its continuation (`contextKeys.continuationJoin`).
function continuationJoin(state: TurnState): string {
  const join = state.values.get(contextKeys.continuationJoin.id);
  return typeof join === 'string' ? join : '';
}
