import { KernelError } from '../errors.js';

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
