import { abortReason } from '../abort.js';
import { systemClock } from '../ports/clock.js';
import { runWithin } from '../timing/on-clock.js';
import { describeError, KernelError } from '../errors.js';
import type { Logger } from '../ports/logger.js';
import type { TurnState } from '../turn/turn-state.js';
import { LazyHandlerSignal } from './handler-signal.js';
import { settledSoon } from './settled-soon.js';
import type { HookName, RegisteredHandler, TurnHooks } from './hook-types.js';

/** Harness-wide settings the runner needs. */
export interface HookRunnerSettings {
  /** Default timeout per hook (ms). */
  readonly timeouts: Readonly<Record<HookName, number>>;
  /** A handler running longer than this gets one warning (ms). */
  readonly slowWarningMs: number;
  /** Logger per plugin name, created once at boot. */
  readonly loggers: ReadonlyMap<string, Logger>;
}

/** The outcome of one handler call: its return value, or `degraded` when it failed softly. */
export type HandlerOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: KernelError };

/**
 * Calls one handler with its own signal (turn signal + timeout), a slow-hook warning, and the
 * kernel's error rules:
 * - the turn signal aborted → rejects with its reason (never wrapped, never degraded);
 * - timeout → `KERNEL_HOOK_TIMEOUT`; other failure → `KERNEL_HOOK_FAILED`, both naming plugin
 *   and hook;
 * - `degradable` handlers: the failure becomes a `kernel/hook-degraded` event and
 *   `{ok: false}` is returned instead of throwing.
 * A handler that returns synchronously, or whose promise settles within a few promise jobs, costs
 * no timer, listener or controller; one that waits on I/O gets its deadline from `runWithin`
 * (an Effect timeout racing the turn signal).
 */
export async function runHandler<K extends HookName>(
  registered: RegisteredHandler<K>,
  value: Parameters<TurnHooks[K]>[0],
  state: TurnState,
  settings: HookRunnerSettings,
): Promise<HandlerOutcome<Awaited<ReturnType<TurnHooks[K]>>>> {
  const turnSignal = state.init.signal;
  if (turnSignal.aborted) throw abortReason(turnSignal);
  const { plugin, hook } = registered;
  const logger = settings.loggers.get(plugin) ?? (settings.loggers.get('') as Logger);
  const handlerSignal = new LazyHandlerSignal(turnSignal);
  const timeoutMs = registered.timeoutMs ?? settings.timeouts[hook];
  const started = performance.now();
  let timedOut = false;
  try {
    const context = state.contextFor(plugin, handlerSignal, logger);
    const handler = registered.handler as (input: unknown, ctx: typeof context) => unknown;
    let result = handler(value, context);
    if (isThenable(result)) {
      const soon = await settledSoon(result);
      result = soon ? soon.value : await runWithin(systemClock, timeoutMs, turnSignal, () => {
        timedOut = true;
        const reason = new DOMException(`${hook} handler of "${plugin}" timed out after ${timeoutMs} ms`, 'TimeoutError');
        handlerSignal.abort(reason);
        return reason;
      }, () => result as PromiseLike<unknown>);
    }
    return { ok: true, value: result as Awaited<ReturnType<TurnHooks[K]>> };
  } catch (cause) {
    if (turnSignal.aborted) throw abortReason(turnSignal);
    const error = timedOut
      ? new KernelError('KERNEL_HOOK_TIMEOUT', `Plugin "${plugin}" timed out in ${hook} after ${timeoutMs} ms`, { plugin, hook, cause })
      : new KernelError('KERNEL_HOOK_FAILED', `Plugin "${plugin}" failed in ${hook}: ${describeError(cause).message}`, { plugin, hook, cause });
    if (!registered.degradable) throw error;
    logger.warn(`${hook} handler degraded`, { hook, plugin, error: describeError(cause) });
    state.queue('kernel/hook-degraded', { plugin, hook, code: error.code, error: describeError(cause) });
    return { ok: false, error };
  } finally {
    handlerSignal.dispose();
    const elapsed = performance.now() - started;
    if (elapsed > settings.slowWarningMs) logger.warn(`${hook} handler is slow`, { hook, plugin, elapsedMs: Math.round(elapsed) });
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Runs a series waterfall: each handler receives the current value and may return a new one.
 * @returns the final value
 */
export async function runWaterfall<K extends 'actorAssemble' | 'review'>(
  handlers: readonly RegisteredHandler<K>[],
  initial: Parameters<TurnHooks[K]>[0],
  state: TurnState,
  settings: HookRunnerSettings,
): Promise<Parameters<TurnHooks[K]>[0]> {
  let current = initial;
  for (const registered of handlers) {
    const outcome = await runHandler(registered, current, state, settings);
    if (outcome.ok && outcome.value !== undefined && outcome.value !== null) current = outcome.value as typeof current;
  }
  return current;
}

/**
 * Runs handlers one after another for their effects (`preActor`).
 */
export async function runSeries(handlers: readonly RegisteredHandler<'preActor'>[], input: string, state: TurnState, settings: HookRunnerSettings): Promise<void> {
  for (const registered of handlers) await runHandler(registered, input, state, settings);
}

/**
 * Runs `postReview` handlers in parallel, isolated: a failure never fails the turn. Failures are
 * recorded as `kernel/post-review-failed` events and returned. The turn signal still wins.
 * @returns the wrapped errors of failed handlers
 */
export async function runIsolated(
  handlers: readonly RegisteredHandler<'postReview'>[],
  value: Parameters<TurnHooks['postReview']>[0],
  state: TurnState,
  settings: HookRunnerSettings,
): Promise<KernelError[]> {
  const outcomes = await Promise.allSettled(handlers.map((registered) => runHandler(registered, value, state, settings)));
  const turnSignal = state.init.signal;
  if (turnSignal.aborted) throw abortReason(turnSignal);
  const errors: KernelError[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') continue;
    const error = KernelError.isInstance(outcome.reason)
      ? outcome.reason
      : new KernelError('KERNEL_HOOK_FAILED', describeError(outcome.reason).message, { hook: 'postReview', cause: outcome.reason });
    errors.push(error);
    state.queue('kernel/post-review-failed', { plugin: error.plugin, hook: 'postReview', code: error.code, error: describeError(error.cause ?? error) });
  }
  return errors;
}
