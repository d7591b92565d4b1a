import { systemClock } from '../ports/clock.js';
import { raceTurnWithin } from '../timing/run-within.js';
import { describeError, KernelError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import { HandlerContext } from '../turn/handler-context.js';
import type { TurnState } from '../turn/turn-state.js';
import { settledSoon } from './settled-soon.js';
import type { CommittedTurn, CommittingTurn, HookName, RegisteredHandler, TurnHooks } from './hook-types.js';

/** Harness-wide settings the runner needs. */
export interface HookRunnerSettings {
  /** Default timeout per hook (ms). */
  readonly timeouts: Readonly<Record<HookName, number>>;
  /** A handler running longer than this gets one warning (ms). */
  readonly slowWarningMs: number;
  /** Logger per plugin name, created once at boot. */
  readonly loggers: ReadonlyMap<string, Logger>;
}

/** A degradable handler's failure, already logged and recorded as a `kernel/hook-degraded` event. */
class Degraded {
  constructor(readonly error: KernelError) {}
}

/**
 * When the next handler of a run starts (`performance.now()`): the end of one handler is the
 * start of the next, so a run takes one clock reading per handler, not two.
 */
interface Stopwatch {
  mark: number;
}

/**
 * Calls one handler with its own context and signal (turn signal + timeout), a slow-hook warning,
 * and the kernel's error rules:
 * - the turn signal aborted → throws its reason (never wrapped, never degraded);
 * - timeout → `KERNEL_HOOK_TIMEOUT`; other failure → `KERNEL_HOOK_FAILED`, both naming plugin
 *   and hook;
 * - `degradable` handlers: the failure becomes a `kernel/hook-degraded` event and a
 *   {@link Degraded} is returned instead of throwing.
 * A handler that returns a non-promise is finished here, synchronously: no promise, no microtask
 * hop, no timer, listener or controller — a turn through sync handlers costs a function call per
 * handler. A promise that settles within a few promise jobs costs no timer either; one that waits
 * on I/O gets its deadline from `runWithin` (an Effect timeout racing the turn signal).
 * @returns the handler's value (or a {@link Degraded}), or a promise of it when the handler returned one
 */
function callHandler<K extends HookName>(
  registered: RegisteredHandler<K>,
  value: Parameters<TurnHooks[K]>[0],
  state: TurnState,
  settings: HookRunnerSettings,
  watch: Stopwatch,
): unknown {
  const turn = state.init.abort;
  if (turn.aborted) throw turn.reason;
  const plugin = registered.plugin;
  const logger = settings.loggers.get(plugin) ?? (settings.loggers.get('') as Logger);
  const context = new HandlerContext(state, plugin, logger);
  const started = watch.mark;
  let result: unknown;
  try {
    result = (registered.handler as (input: unknown, ctx: HandlerContext) => unknown)(value, context);
  } catch (cause) {
    try {
      return failed(registered, cause, undefined, state, logger);
    } finally {
      finished(registered, context, started, settings, logger, watch);
    }
  }
  if (!isThenable(result)) {
    finished(registered, context, started, settings, logger, watch);
    return result;
  }
  return settle(registered, result, context, started, state, settings, logger, watch);
}

/** The rest of {@link callHandler} for a handler that returned a promise. */
async function settle(
  registered: RegisteredHandler<HookName>,
  pending: PromiseLike<unknown>,
  context: HandlerContext,
  started: number,
  state: TurnState,
  settings: HookRunnerSettings,
  logger: Logger,
  watch: Stopwatch,
): Promise<unknown> {
  const { plugin, hook } = registered;
  const timeoutMs = registered.timeoutMs ?? settings.timeouts[hook];
  let timedOut = false;
  try {
    const soon = await settledSoon(pending);
    if (soon) return soon.value;
    return await raceTurnWithin(systemClock, timeoutMs, state.init.abort, () => {
      timedOut = true;
      const reason = new DOMException(`${hook} handler of "${plugin}" timed out after ${timeoutMs} ms`, 'TimeoutError');
      context.abortHandler(reason);
      return reason;
    }, pending);
  } catch (cause) {
    return failed(registered, cause, timedOut ? timeoutMs : undefined, state, logger);
  } finally {
    finished(registered, context, started, settings, logger, watch);
  }
}

/** Applies the error rules to a handler's failure: throws, or returns a {@link Degraded}. */
function failed(registered: RegisteredHandler<HookName>, cause: unknown, timedOutAfterMs: number | undefined, state: TurnState, logger: Logger): Degraded {
  const turn = state.init.abort;
  if (turn.aborted) throw turn.reason;
  const { plugin, hook } = registered;
  const error =
    timedOutAfterMs !== undefined
      ? new KernelError('KERNEL_HOOK_TIMEOUT', `Plugin "${plugin}" timed out in ${hook} after ${timedOutAfterMs} ms`, { plugin, hook, cause })
      : new KernelError('KERNEL_HOOK_FAILED', `Plugin "${plugin}" failed in ${hook}: ${describeError(cause).message}`, { plugin, hook, cause });
  if (!registered.degradable) throw error;
  logger.warn(`${hook} handler degraded`, { hook, plugin, error: describeError(cause) });
  state.queue('kernel/hook-degraded', { plugin, hook, code: error.code, error: describeError(cause) });
  return new Degraded(error);
}

/** Detaches the handler's signal and warns once when it ran longer than `slowWarningMs`. */
function finished(registered: RegisteredHandler<HookName>, context: HandlerContext, started: number, settings: HookRunnerSettings, logger: Logger, watch: Stopwatch): void {
  context.dispose();
  const now = performance.now();
  watch.mark = now;
  const elapsed = now - started;
  if (elapsed > settings.slowWarningMs) logger.warn(`${registered.hook} handler is slow`, { hook: registered.hook, plugin: registered.plugin, elapsedMs: Math.round(elapsed) });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Runs a series waterfall: each handler receives the current value and may return a new one.
 * Handlers that answer synchronously run back to back, without a promise job between them, and
 * when all of them do the final value comes back as is (no promise to wait for).
 * @returns the final value, or a promise of it once a handler returned a promise
 */
export function runWaterfall<K extends 'actorAssemble' | 'review'>(
  handlers: readonly RegisteredHandler<K>[],
  initial: Parameters<TurnHooks[K]>[0],
  state: TurnState,
  settings: HookRunnerSettings,
): Parameters<TurnHooks[K]>[0] | Promise<Parameters<TurnHooks[K]>[0]> {
  let current = initial;
  if (handlers.length === 0) return current;
  const watch: Stopwatch = { mark: performance.now() };
  for (let index = 0; index < handlers.length; index++) {
    const outcome = callHandler(handlers[index] as RegisteredHandler<K>, current, state, settings, watch);
    if (outcome instanceof Promise) return finishWaterfall(handlers, index, outcome, current, state, settings, watch);
    current = passedOn(current, outcome);
  }
  return current;
}

/** The rest of {@link runWaterfall} from the first handler that returned a promise. */
async function finishWaterfall<K extends 'actorAssemble' | 'review'>(
  handlers: readonly RegisteredHandler<K>[],
  from: number,
  pending: Promise<unknown>,
  value: Parameters<TurnHooks[K]>[0],
  state: TurnState,
  settings: HookRunnerSettings,
  watch: Stopwatch,
): Promise<Parameters<TurnHooks[K]>[0]> {
  let current = passedOn(value, await pending);
  for (let index = from + 1; index < handlers.length; index++) {
    let outcome = callHandler(handlers[index] as RegisteredHandler<K>, current, state, settings, watch);
    if (outcome instanceof Promise) outcome = await outcome;
    current = passedOn(current, outcome);
  }
  return current;
}

// A waterfall handler's result replaces the value unless it is empty or the handler degraded.
function passedOn<T>(current: T, outcome: unknown): T {
  return outcome !== undefined && outcome !== null && !(outcome instanceof Degraded) ? (outcome as T) : current;
}

/**
 * Runs handlers one after another for their effects (`preActor`).
 * @returns nothing when every handler answered synchronously, else a promise of the rest
 */
export function runSeries(handlers: readonly RegisteredHandler<'preActor'>[], input: string, state: TurnState, settings: HookRunnerSettings): Promise<void> | undefined {
  if (handlers.length === 0) return undefined;
  const watch: Stopwatch = { mark: performance.now() };
  for (let index = 0; index < handlers.length; index++) {
    const outcome = callHandler(handlers[index] as RegisteredHandler<'preActor'>, input, state, settings, watch);
    if (outcome instanceof Promise) return finishSeries(handlers, index, outcome, input, state, settings, watch);
  }
  return undefined;
}

/** The rest of {@link runSeries} from the first handler that returned a promise. */
async function finishSeries(
  handlers: readonly RegisteredHandler<'preActor'>[],
  from: number,
  pending: Promise<unknown>,
  input: string,
  state: TurnState,
  settings: HookRunnerSettings,
  watch: Stopwatch,
): Promise<void> {
  await pending;
  for (let index = from + 1; index < handlers.length; index++) {
    const outcome = callHandler(handlers[index] as RegisteredHandler<'preActor'>, input, state, settings, watch);
    if (outcome instanceof Promise) await outcome;
  }
}

/**
 * Runs `postReview` handlers in parallel, isolated: a failure never fails the turn. Failures are
 * recorded as `kernel/post-review-failed` events and returned. The turn signal still wins.
 * Every handler starts before any is waited for; only those that returned a promise are waited for.
 * `value` is a {@link CommittingTurn} only for handlers registered with `duringCommit`.
 * @returns the wrapped errors of failed handlers, in handler order (as is when every handler
 *   answered synchronously, else a promise)
 * @throws the turn's abort reason when the turn was aborted
 */
export function runIsolated(
  handlers: readonly RegisteredHandler<'postReview'>[],
  value: CommittedTurn | CommittingTurn,
  state: TurnState,
  settings: HookRunnerSettings,
): KernelError[] | Promise<KernelError[]> {
  if (handlers.length === 0) return [];
  const failures: { readonly index: number; readonly reason: unknown }[] = [];
  let pending: Promise<void>[] | undefined;
  const watch: Stopwatch = { mark: performance.now() };
  for (let index = 0; index < handlers.length; index++) {
    try {
      const outcome = callHandler(handlers[index] as RegisteredHandler<'postReview'>, value as CommittedTurn, state, settings, watch);
      if (outcome instanceof Promise) {
        pending ??= [];
        pending.push(
          outcome.then(noop, (reason: unknown) => {
            failures.push({ index, reason });
          }),
        );
      }
    } catch (reason) {
      failures.push({ index, reason });
    }
  }
  if (pending) return Promise.all(pending).then(() => isolatedErrors(failures, state));
  return isolatedErrors(failures, state);
}

/** Records and returns the failures of {@link runIsolated}, in handler order; the turn's abort wins. */
function isolatedErrors(failures: { readonly index: number; readonly reason: unknown }[], state: TurnState): KernelError[] {
  const turn = state.init.abort;
  if (turn.aborted) throw turn.reason;
  if (failures.length === 0) return [];
  failures.sort((a, b) => a.index - b.index);
  const errors: KernelError[] = [];
  for (const { reason } of failures) {
    const error = KernelError.isInstance(reason) ? reason : new KernelError('KERNEL_HOOK_FAILED', describeError(reason).message, { hook: 'postReview', cause: reason });
    errors.push(error);
    state.queue('kernel/post-review-failed', { plugin: error.plugin, hook: 'postReview', code: error.code, error: describeError(error.cause ?? error) });
  }
  return errors;
}

function noop(): void {}
