import { formatIssues } from '../errors/format-issues.js';
import * as z from 'zod';
import { abortReason } from '../abort.js';
import { describeError, KernelError } from '../errors.js';
import type { ToolCall, ToolSpec } from '../ports/chat-model.js';
import type { TurnContext } from '../turn/turn-context.js';
import type { DirectorTool, ToolCallOutcome, ToolErrorCode } from './director-tool.js';

const TOOL_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,63}$/;

interface RegisteredTool {
  readonly plugin: string;
  readonly tool: DirectorTool;
  readonly spec: ToolSpec;
}

/**
 * Holds the tools plugins registered and checks every call the control model makes: the tool
 * exists, is enabled in this scenario, its arguments are valid, and a once-per-turn tool is not
 * called twice. Any rejection becomes a clear tool error for the model, never an exception.
 */
export class ToolExecutor {
  readonly #tools = new Map<string, RegisteredTool>();

  /**
   * @param plugin - the registering plugin
   * @param tool - the tool
   * @throws {KernelError} KERNEL_TOOL_DUPLICATE / KERNEL_PLUGIN_INVALID
   */
  register(plugin: string, tool: DirectorTool): void {
    if (typeof tool?.name !== 'string' || !TOOL_NAME_PATTERN.test(tool.name)) {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin}" registered a tool with an invalid name ${JSON.stringify(tool?.name)}`, {
        plugin,
      });
    }
    if (typeof tool.execute !== 'function' || typeof tool.parameters?.safeParse !== 'function') {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Tool "${tool.name}" of plugin "${plugin}" needs a zod parameters schema and an execute function`, {
        plugin,
      });
    }
    const existing = this.#tools.get(tool.name);
    if (existing) {
      throw new KernelError('KERNEL_TOOL_DUPLICATE', `Tool "${tool.name}" is registered by both "${existing.plugin}" and "${plugin}"`, { plugin });
    }
    const parameters = z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    this.#tools.set(tool.name, { plugin, tool, spec: { name: tool.name, description: tool.description, parameters } });
  }

  /** True when no tool is registered. */
  get isEmpty(): boolean {
    return this.#tools.size === 0;
  }

  /** The specs of tools enabled for a scenario's allowlist (all when omitted). */
  specsFor(enabled: readonly string[] | undefined): ToolSpec[] {
    const specs: ToolSpec[] = [];
    for (const { spec } of this.#tools.values()) if (!enabled || enabled.includes(spec.name)) specs.push(spec);
    return specs;
  }

  /**
   * Checks and runs one call.
   * @param call - what the model asked for
   * @param enabled - the scenario's tool allowlist (undefined = all)
   * @param calledOnce - names of once-per-turn tools already called successfully this turn
   * @param ctx - the turn context for the tool
   * @returns the outcome to send back to the model
   * @throws the abort reason when the turn is cancelled
   */
  async execute(call: ToolCall, enabled: readonly string[] | undefined, calledOnce: Set<string>, ctx: TurnContext): Promise<ToolCallOutcome> {
    const reject = (code: ToolErrorCode, message: string): ToolCallOutcome => ({ ok: false, error: { code, message } });
    const registered = this.#tools.get(call.name);
    if (!registered) {
      const known = this.specsFor(enabled).map((spec) => spec.name);
      return reject('TOOL_UNKNOWN', `There is no tool named "${call.name}". Available tools: ${known.join(', ') || 'none'}.`);
    }
    if (enabled && !enabled.includes(call.name)) {
      return reject('TOOL_NOT_ENABLED', `The tool "${call.name}" is not available in this scenario.`);
    }
    if (registered.tool.oncePerTurn && calledOnce.has(call.name)) {
      return reject('TOOL_DUPLICATE_CALL', `The tool "${call.name}" may be called only once per turn and was already called.`);
    }
    const parsed = registered.tool.parameters.safeParse(call.arguments ?? {});
    if (!parsed.success) {
      return reject('TOOL_INVALID_ARGUMENTS', `Invalid arguments for "${call.name}": ${formatIssues(parsed.error, { root: '(arguments)' })}`);
    }
    if (registered.tool.oncePerTurn) calledOnce.add(call.name);
    try {
      const result = await registered.tool.execute(parsed.data, ctx);
      return { ok: true, result: result ?? null };
    } catch (error) {
      if (ctx.signal.aborted) throw abortReason(ctx.signal);
      ctx.logger.warn('director tool failed', { tool: call.name, error: describeError(error) });
      return reject('TOOL_FAILED', `The tool "${call.name}" failed: ${describeError(error).message}`);
    }
  }

  /** The plugin that registered a tool. */
  ownerOf(name: string): string | undefined {
    return this.#tools.get(name)?.plugin;
  }
}
