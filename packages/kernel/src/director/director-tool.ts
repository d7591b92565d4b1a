import type * as z from 'zod';
import type { TurnContext } from '../turn/turn-context.js';

/**
 * A tool that plugins offer the pre-actor director (the control model). Parameters are a zod
 * schema: the kernel derives the JSON Schema the model sees and validates every call with it.
 * The handler gets the turn context, so it reads the player's raw input from `ctx.input` — never
 * from model-written arguments.
 */
export interface DirectorTool<Parameters = unknown> {
  /** `[a-z_][a-z0-9_]{0,63}`, unique per harness. */
  readonly name: string;
  /** Tells the control model when to call the tool (and when not to). */
  readonly description: string;
  readonly parameters: z.ZodType<Parameters>;
  /** At most one successful call per turn; a second call gets a tool error. */
  readonly oncePerTurn?: boolean;
  /**
   * Runs the tool. The returned value (JSON-serialisable) is sent back to the model.
   * @param parameters - validated arguments
   * @param ctx - the turn context (raw input, ids, signal, events, background tasks)
   */
  execute(parameters: Parameters, ctx: TurnContext): Promise<unknown>;
}

/**
 * Declares a director tool with its parameter type inferred from the schema.
 * @param tool - the tool
 * @returns the same tool, typed
 */
export function defineDirectorTool<Schema extends z.ZodType>(
  tool: Omit<DirectorTool<z.output<Schema>>, 'parameters'> & { readonly parameters: Schema },
): DirectorTool<z.output<Schema>> {
  return tool as DirectorTool<z.output<Schema>>;
}

/** Stable codes of the tool errors fed back to the control model. */
export type ToolErrorCode = 'TOOL_UNKNOWN' | 'TOOL_NOT_ENABLED' | 'TOOL_INVALID_ARGUMENTS' | 'TOOL_DUPLICATE_CALL' | 'TOOL_FAILED';

/** What the executor returns for one call (and sends to the model as the tool message). */
export type ToolCallOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: { readonly code: ToolErrorCode; readonly message: string } };
