import { type Clock, definePlugin, type Logger, type PluginDefinition, Tokens } from '@troupe/kernel';
import type { InjectionToken } from '@troupe/kernel/di';
import { activePromptHandler } from './active-prompt-handler.js';
import { DioBackgroundWork } from './background-work.js';
import { type DioPluginConfig, DioPluginConfigSchema, type DioPluginConfigInput } from './config.js';
import { DioClient } from './dio-client.js';
import type { FetchLike } from './http-request.js';
import { scheduleDioTool } from './schedule-tool.js';
import { DioSessionRequirements, DioSessionRequirementsToken } from './session-requirements.js';

/** Plugin name (also the npm package name). */
export const DIO_PLUGIN_NAME = '@troupe/plugin-dio';

/** DI token under which the plugin exposes its {@link DioClient} (for apps, e.g. a status panel). */
export const DioClientToken = Symbol.for('@troupe/plugin-dio/DioClient') as InjectionToken<DioClient>;

/** Options of {@link dioPlugin}: the serialisable config plus injectable ports. */
export interface DioPluginOptions extends DioPluginConfigInput {
  /** HTTP client (default: global fetch). */
  readonly fetch?: FetchLike;
  /** Clock for timeouts and polling (default: the harness clock). */
  readonly clock?: Clock;
  /** Diagnostics for the client (default: the plugin's logger). */
  readonly logger?: Logger;
}

/**
 * The DIO plugin: offers `schedule_dio` to the pre-actor director (enable it per scenario with
 * `preActorDirector: true`), waits for scheduled tasks in the background, and on every turn
 * looks up the active compiled prompt for the actor assembler.
 * @example
 * ```ts
 * const harness = await createHarness({
 *   plugins: [dioPlugin({ baseUrl: 'http://127.0.0.1:8787', targetPromptId: 'lia-character' }), actorAssemblerPlugin({ preset })],
 *   model, sessionLog, scenario: { preActorDirector: true },
 * });
 * ```
 * @param options - config (validated at boot) and ports
 * @returns the plugin definition
 * @throws {KernelError} KERNEL_PLUGIN_CONFIG_INVALID at boot for bad config
 */
export function dioPlugin(options: DioPluginOptions): PluginDefinition<DioPluginConfig> {
  const { fetch, clock, logger, ...config } = options;
  return definePlugin<DioPluginConfig>({
    name: DIO_PLUGIN_NAME,
    version: '0.1.0',
    kernel: '>=0.1.0 <1.0.0',
    configSchema: DioPluginConfigSchema,
    config,
    setup(ctx) {
      // Built by the harness container: an app overrides the client itself (`DioClientToken`) or
      // only its HTTP (`Tokens.Fetch`) and time (`Tokens.Clock`) when it creates the harness.
      ctx.provide({
        token: DioClientToken,
        useFactory: (resolve) =>
          new DioClient(ctx.config.baseUrl, ctx.config.requestTimeoutMs, {
            clock: clock ?? resolve(Tokens.Clock),
            logger: logger ?? ctx.logger,
            fetch: fetch ?? resolve(Tokens.Fetch),
          }),
      });
      const client = ctx.resolve(DioClientToken);
      ctx.expose(DioClientToken, client);
      // Revoke and branch happen outside turns: the app calls these so the session log records them.
      const sessionLog = ctx.resolve(Tokens.SessionLog);
      const harnessClock = clock ?? ctx.resolve(Tokens.Clock);
      // One per harness: it knows which requirements' background work this process runs.
      const work = new DioBackgroundWork(client, ctx.config, sessionLog, ctx.resolve(Tokens.BackgroundTasks), harnessClock, ctx.logger);
      ctx.expose(DioSessionRequirementsToken, new DioSessionRequirements(client, sessionLog, harnessClock, work));
      ctx.registerTool(scheduleDioTool(client, ctx.config, work) as never);
      // Degradation is handled inside (exact event names); `degradable` is only the backstop
      // for the kernel's own hook timeout.
      ctx.hooks.preActor({ handler: activePromptHandler(client, ctx.config, work), degradable: true });
    },
  });
}
