import { Effect } from 'effect';
import { KernelError } from '../errors.js';
import type { Clock } from '../ports/clock.js';

/** Per-turn limits of a harness (see `HarnessOptions.turnDeadlineMs` / `maxReplyChars`). */
export interface TurnLimits {
  /** Longest a turn may take from start to commit (ms). */
  readonly turnDeadlineMs: number;
  /** Longest reply the actor may produce (characters). */
  readonly maxReplyChars: number;
}

/** Default of `HarnessOptions.turnDeadlineMs`: 10 minutes from the turn's start to its commit. */
export const DEFAULT_TURN_DEADLINE_MS = 600_000;
/** Default of `HarnessOptions.maxReplyChars`: 200 000 characters (twice the longest input). */
export const DEFAULT_MAX_REPLY_CHARS = 200_000;

/**
 * Validates and fills in the turn limits.
 * @param options - what the harness options gave
 * @returns the limits
 * @throws {KernelError} KERNEL_HARNESS_INVALID naming a limit that is not a positive integer
 */
export function resolveTurnLimits(options: { readonly turnDeadlineMs?: number | undefined; readonly maxReplyChars?: number | undefined }): TurnLimits {
  const limits = { turnDeadlineMs: options.turnDeadlineMs ?? DEFAULT_TURN_DEADLINE_MS, maxReplyChars: options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new KernelError('KERNEL_HARNESS_INVALID', `createHarness: ${name} must be a positive integer, got ${String(value)}`);
  }
  return limits;
}

/** A running turn deadline. */
export interface TurnDeadline {
  /** Whether the deadline passed (and aborted the turn). */
  readonly fired: boolean;
  /** The error the turn was aborted with. */
  readonly error: KernelError;
  /** Stops the deadline (at commit: a committing turn is never cut halfway). */
  disarm(): void;
}

/**
 * Arms a turn's deadline on the harness clock: when `ms` pass, `controller` is aborted with a
 * `KERNEL_TURN_DEADLINE_EXCEEDED` error, so every handler, model call and wait of the turn ends.
 * The timer is an Effect fiber; `disarm` interrupts it (no timer is left behind).
 * @param clock - the harness clock (virtual in tests)
 * @param ms - the deadline
 * @param controller - the turn's controller
 * @returns the deadline handle
 */
export function armTurnDeadline(clock: Clock, ms: number, controller: AbortController): TurnDeadline {
  const stop = new AbortController();
  // Built when the deadline fires (or someone asks): a KernelError per turn would cost its stack.
  let error: KernelError | undefined;
  const deadlineError = () => {
    error ??= new KernelError('KERNEL_TURN_DEADLINE_EXCEEDED', `The turn did not finish within its deadline of ${ms} ms (turnDeadlineMs); nothing was committed`, {
      details: { turnDeadlineMs: ms },
    });
    return error;
  };
  let fired = false;
  const expire = Effect.promise((signal) => clock.sleep(ms, signal)).pipe(
    Effect.andThen(
      Effect.sync(() => {
        fired = true;
        controller.abort(deadlineError());
      }),
    ),
  );
  // Interrupted by `disarm` (or the turn ending first): nothing to report.
  Effect.runPromise(expire, { signal: stop.signal }).catch(() => {});
  return {
    get fired() {
      return fired;
    },
    get error() {
      return deadlineError();
    },
    // A shared reason: aborting without one would build a DOMException per turn.
    disarm: () => stop.abort(DISARMED),
  };
}

const DISARMED = Symbol('turn deadline disarmed');

/**
 * The error for an actor reply over the cap.
 * @param modelId - the actor model
 * @param maxReplyChars - the cap
 */
export function replyTooLarge(modelId: string, maxReplyChars: number): KernelError {
  return new KernelError('KERNEL_REPLY_TOO_LARGE', `The actor model "${modelId}" replied with more than ${maxReplyChars} characters (maxReplyChars); the turn was stopped and nothing was committed`, {
    details: { maxReplyChars },
  });
}
