import { defineErrorClass, type TroupeErrorOptions } from './errors/troupe-error.js';

/**
 * Stable error codes raised by the kernel. Codes never change meaning once released;
 * match on `code`, not on the message.
 */
export type KernelErrorCode =
  | 'KERNEL_PLUGIN_DUPLICATE'
  | 'KERNEL_PLUGIN_MISSING_DEPENDENCY'
  | 'KERNEL_PLUGIN_VERSION_MISMATCH'
  | 'KERNEL_PLUGIN_CONFIG_INVALID'
  | 'KERNEL_PLUGIN_INVALID'
  | 'KERNEL_PLUGIN_SETUP_FAILED'
  | 'KERNEL_HARNESS_INVALID'
  | 'KERNEL_HARNESS_CLOSED'
  | 'KERNEL_HOOK_FAILED'
  | 'KERNEL_HOOK_TIMEOUT'
  | 'KERNEL_TURN_INPUT_INVALID'
  | 'KERNEL_MODEL_FAILED'
  | 'KERNEL_TURN_DEADLINE_EXCEEDED'
  | 'KERNEL_REPLY_TOO_LARGE'
  | 'KERNEL_MODEL_NOT_FOUND'
  | 'KERNEL_TOOL_DUPLICATE'
  | 'KERNEL_CONTEXT_KEY_MISSING'
  | 'KERNEL_BACKGROUND_FAILED'
  | 'KERNEL_CHAT_CONTROL_INVALID'
  | 'KERNEL_TURN_NOT_FOUND'
  | 'KERNEL_STEP_NOT_FOUND'
  | 'KERNEL_SERVICE_MISSING';

/** Options accepted by {@link KernelError}: cause, plugin, hook and details. */
export type KernelErrorOptions = TroupeErrorOptions;

/**
 * The error type the kernel throws. Recognise it across duplicated package copies with
 * `KernelError.isInstance(error)`; any Troupe package's error with `TroupeError.isInstance(error)`.
 */
export class KernelError extends defineErrorClass<KernelErrorCode>('KernelError') {}

/**
 * Turns anything thrown into an `Error` so callers never see `undefined` or a string rejection.
 * @param value - the thrown value
 * @returns the value itself when it is an Error, otherwise an Error describing it
 */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  let description: string;
  try {
    description = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    description = String(value);
  }
  return new Error(`Non-error thrown: ${description}`, { cause: value });
}

/**
 * A small, serialisable summary of an error for session events (no stack traces in logs that
 * players may export).
 * @param error - any thrown value
 * @returns name, message and code (when the error has one)
 */
export function describeError(error: unknown): { name: string; message: string; code?: string } {
  const normalised = toError(error);
  const code = (normalised as { code?: unknown }).code;
  return typeof code === 'string'
    ? { name: normalised.name, message: normalised.message, code }
    : { name: normalised.name, message: normalised.message };
}
