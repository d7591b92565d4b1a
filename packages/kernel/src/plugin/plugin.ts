import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { ServiceProvider } from '../di/service-providers.js';
import type { DirectorTool } from '../director/director-tool.js';
import type { HookEntry, HookName } from '../hooks/hook-types.js';
import type { Logger } from '../ports/logger.js';

/**
 * The Standard Schema interface (https://standardschema.dev) — zod 4, valibot and arktype
 * schemas implement it, so the kernel validates plugin config without depending on one library.
 */
export interface StandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(
      value: unknown,
    ):
      | StandardSchemaResult<Output>
      | Promise<StandardSchemaResult<Output>>;
  };
}

/** Result of a Standard Schema validation. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] }[] };

/** Registers handlers for each hook point; the plugin's name is attached for error messages. */
export type HookRegistrar = { readonly [K in HookName]: (entry: HookEntry<K>) => void };

/** What a plugin's `setup` receives. */
export interface PluginSetupContext<Config> {
  /** The plugin's name. */
  readonly name: string;
  /** The validated config (the schema's output). */
  readonly config: Config;
  /** Diagnostics logger scoped to the plugin. */
  readonly logger: Logger;
  /** The plugin's private DI scope (a child of the harness root container). */
  readonly container: DependencyContainer;
  /** Publishes a value into the harness root container so the app and other code can resolve it. */
  expose<T>(token: InjectionToken<T>, value: T): void;
  /**
   * Registers the plugin's default for a service in its scope — unless the app already provided
   * that token to `createHarness({ provide })`, whose provider then wins.
   */
  provide<T>(provider: ServiceProvider<T>): void;
  /**
   * Resolves (and, for classes, builds) a service from the plugin's scope.
   * @throws {KernelError} KERNEL_SERVICE_MISSING naming a token nothing provides
   */
  resolve<T>(token: InjectionToken<T>): T;
  /** Registers hook handlers. */
  readonly hooks: HookRegistrar;
  /** Offers a tool to the pre-actor director. */
  // biome-ignore lint/suspicious/noExplicitAny: tools of any parameter type are accepted; each validates its own.
  registerTool(tool: DirectorTool<any>): void;
  /** Runs when the harness closes (after background tasks end), in reverse setup order. */
  onClose(callback: () => void | Promise<void>): void;
}

/** A plugin: metadata checked at boot, and a setup function. */
export interface PluginDefinition<Config = unknown> {
  /** Unique name, usually the npm package name. */
  readonly name: string;
  /** The plugin's own version (semver). */
  readonly version: string;
  /** Semver range of `@troupe/kernel` the plugin supports; checked at boot. */
  readonly kernel?: string;
  /** Names of plugins that must be present. Checked, not used for ordering. */
  readonly dependencies?: readonly string[];
  /** Validates `config` at boot. */
  readonly configSchema?: StandardSchema<Config>;
  /** The raw config, validated by `configSchema`. */
  readonly config?: unknown;
  setup(ctx: PluginSetupContext<Config>): void | Promise<void>;
}

/**
 * Declares a plugin with its config type inferred from the schema.
 * @example
 * ```ts
 * export const greeter = (config: { greeting: string }) =>
 *   definePlugin({
 *     name: 'greeter', version: '1.0.0', kernel: '^0.1.0', config,
 *     configSchema: z.object({ greeting: z.string() }),
 *     setup(ctx) {
 *       ctx.hooks.review((reply) => ({ text: `${ctx.config.greeting} ${reply.text}` }));
 *     },
 *   });
 * ```
 * @param plugin - the plugin definition
 * @returns the same definition
 */
export function definePlugin<Config = unknown>(plugin: PluginDefinition<Config>): PluginDefinition<Config> {
  return plugin;
}
