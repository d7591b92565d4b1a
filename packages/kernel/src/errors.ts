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
  | 'KERNEL_MODEL_NOT_FOUND'
  | 'KERNEL_TOOL_DUPLICATE'
  | 'KERNEL_CONTEXT_KEY_MISSING'
  | 'KERNEL_BACKGROUND_FAILED'
  | 'KERNEL_CHAT_CONTROL_INVALID'
  | 'KERNEL_TURN_NOT_FOUND'
  | 'KERNEL_STEP_NOT_FOUND';

const KERNEL_ERROR_MARKER = Symbol.for('@troupe/kernel/KernelError');

/** Options accepted by {@link KernelError}. */
export interface KernelErrorOptions {
  /** The underlying error, kept for diagnostics. */
  readonly cause?: unknown;
  /** Name of the plugin involved, when there is one. */
  readonly plugin?: string;
  /** Name of the hook involved, when there is one. */
  readonly hook?: string;
  /** Extra machine-readable details (e.g. flattened config issues). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The one error type the kernel throws. Recognise it across duplicated package copies with
 * {@link KernelError.isInstance}, which checks a `Symbol.for` marker instead of the prototype.
 */
export class KernelError extends Error {
  /** Stable, documented error code. */
  readonly code: KernelErrorCode;
  /** Plugin that raised or caused the error, if any. */
  readonly plugin: string | undefined;
  /** Hook in which the error happened, if any. */
  readonly hook: string | undefined;
  /** Extra machine-readable details. */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly [KERNEL_ERROR_MARKER] = true;

  /**
   * @param code - the stable error code
   * @param message - a sentence a developer can act on
   * @param options - cause, plugin, hook and details
   */
  constructor(code: KernelErrorCode, message: string, options: KernelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KernelError';
    this.code = code;
    this.plugin = options.plugin;
    this.hook = options.hook;
    this.details = options.details;
  }

  /** True when `value` is a KernelError from any copy of this package. */
  static isInstance(value: unknown): value is KernelError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[KERNEL_ERROR_MARKER] === true;
  }
}

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
