import { randomUUID } from 'node:crypto';
import { BackgroundTasks } from '../background/background-tasks.js';
import { FiberScope } from '../background/fiber-scope.js';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { ServiceProvider } from '../di/service-providers.js';
import { Tokens } from '../di/tokens.js';
import { ToolExecutor } from '../director/tool-executor.js';
import { describeError, KernelError } from '../errors.js';
import { HookRegistry } from '../hooks/hook-registry.js';
import type { HookRunnerSettings } from '../hooks/hook-runner.js';
import { HOOK_NAMES, type HookEntry, type HookName } from '../hooks/hook-types.js';
import { checkPluginMetadata, validatePluginConfig } from '../plugin/boot-checks.js';
import type { HookRegistrar, PluginDefinition, PluginSetupContext } from '../plugin/plugin.js';
import type { ModelRegistry } from '../ports/chat-model.js';
import type { HeldSessionTurn } from '../ports/session-turn-lock.js';
import { systemClock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import { createModelRegistry } from '../ports/model-registry.js';
import { TokenCounters } from '../budget/token-counter.js';
import { HistoryCache } from '../turn/history-cache.js';
import { FinishedCommits, finishCommittedTurn, finishCommittedTurnQuietly } from '../turn/finish-committed-turn.js';
import { parseTurnInput, runTurn, type TurnServices } from '../turn/run-turn.js';
import { withSessionTurnLock } from '../turn/session-turn-queue.js';
import { TurnDeadlines } from '../turn/turn-deadlines.js';
import { resolveTurnLimits } from '../turn/turn-limits.js';
import { runWithin } from '../timing/on-clock.js';
import { KERNEL_VERSION } from '../version.js';
import { type EditTurnRequest, editTurn, type RemoveTurnsRequest, removeTurns, type SelectStepRequest, selectStep } from '../turn/chat-controls.js';
import { type ContinueTurnRequest, planContinuation } from '../turn/continue-turn.js';
import { planNextStep, type RegenerateTurnRequest } from '../turn/next-step.js';
import type { CommittedTurnRecord } from '../turn/session-history.js';
import type { Harness, HarnessOptions, RunTurnOptions, TurnResult } from './harness-options.js';

/** The queue key of a request before it is validated (validation happens inside the queue). */
function sessionOf(request: unknown): string {
  const sessionId = (request as { sessionId?: unknown } | null)?.sessionId;
  return typeof sessionId === 'string' ? sessionId : '';
}

const DEFAULT_TIMEOUTS: Readonly<Record<HookName, number>> = { preActor: 600_000, actorAssemble: 10_000, review: 60_000, postReview: 300_000 };

/**
 * Boots a kernel instance: checks plugin metadata and config, creates a private DI container
 * (never the global one) with a child scope per plugin, runs every `setup` in order, and sorts
 * hook handlers once.
 * @example
 * ```ts
 * const harness = await createHarness({ plugins: [assemblerPlugin({ preset })], model, sessionLog });
 * const { reply } = await harness.runTurn({ sessionId: 'demo', text: 'Hello, Lia.' });
 * await harness.close();
 * ```
 * @throws {KernelError} KERNEL_HARNESS_INVALID, KERNEL_PLUGIN_DUPLICATE,
 *   KERNEL_PLUGIN_MISSING_DEPENDENCY, KERNEL_PLUGIN_VERSION_MISMATCH,
 *   KERNEL_PLUGIN_CONFIG_INVALID, KERNEL_PLUGIN_INVALID, KERNEL_PLUGIN_SETUP_FAILED,
 *   KERNEL_SERVICE_MISSING (a plugin needs a token nothing provides)
 */
export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const givenModels = pickModels(options);
  if (!options.sessionLog) throw new KernelError('KERNEL_HARNESS_INVALID', 'createHarness needs a sessionLog');
  const limits = resolveTurnLimits(options);
  const plugins = options.plugins ?? [];
  checkPluginMetadata(plugins, KERNEL_VERSION);
  const configs = [];
  for (const plugin of plugins) configs.push(await validatePluginConfig(plugin));

  // DI loads on first use, not when the kernel is imported: a plain `import '@troupe/kernel'`
  // leaves the global `Reflect` alone (reflect-metadata comes with `@troupe/kernel/di`).
  const di = await import('../di/index.js');
  const root = di.createIsolatedContainer();
  root.register(Tokens.Clock, { useValue: options.clock ?? systemClock });
  root.register(Tokens.Logger, { useValue: options.logger ?? silentLogger });
  root.register(Tokens.SessionLog, { useValue: options.sessionLog });
  if (givenModels) root.register(Tokens.ModelRegistry, { useValue: givenModels });
  root.register(Tokens.Fetch, { useValue: (input: Parameters<typeof fetch>[0], init?: RequestInit) => fetch(input, init) });
  if (options.trees) root.register(Tokens.TreeStore, { useValue: options.trees });
  // The app's providers override the defaults above and every plugin's (plugins provide theirs
  // only for tokens nobody registered here).
  for (const provider of options.provide ?? []) di.registerProvider(root, provider);
  // What the kernel itself uses comes from the container too, so an app's override reaches the
  // turn (deadlines, event times, the actor's model) as well as the plugins.
  if (!root.isRegistered(Tokens.ModelRegistry)) {
    throw new KernelError('KERNEL_HARNESS_INVALID', 'createHarness needs a `model` (ChatModel) or `models` (ModelRegistry), or a provider for Tokens.ModelRegistry');
  }
  const models = di.resolveService(root, Tokens.ModelRegistry);
  const clock = di.resolveService(root, Tokens.Clock);
  const logger = di.resolveService(root, Tokens.Logger);
  const background = new BackgroundTasks(options.sessionLog, clock, logger.child({ component: 'background' }));
  root.register(Tokens.BackgroundTasks, { useValue: background });

  const hooks = new HookRegistry();
  const tools = new ToolExecutor();
  const loggers = new Map<string, Logger>([['', logger]]);
  const closeCallbacks: Array<() => void | Promise<void>> = [];
  for (const [index, plugin] of plugins.entries()) {
    const pluginLogger = logger.child({ plugin: plugin.name });
    loggers.set(plugin.name, pluginLogger);
    const context = setupContext(plugin, configs[index], root, root.createChildContainer(), pluginLogger, hooks, tools, closeCallbacks, di);
    try {
      await plugin.setup(context);
    } catch (error) {
      if (KernelError.isInstance(error)) throw error;
      throw new KernelError('KERNEL_PLUGIN_SETUP_FAILED', `Plugin "${plugin.name}" failed in setup: ${describeError(error).message}`, {
        plugin: plugin.name,
        cause: error,
      });
    }
  }
  hooks.freeze();

  // Committed turns' postReview work: drained by close(), interrupted when its grace runs out.
  const committedWork = new FiberScope();
  const runner: HookRunnerSettings = {
    timeouts: { ...DEFAULT_TIMEOUTS, ...options.hookTimeouts },
    slowWarningMs: options.slowHookWarningMs ?? 3_000,
    loggers,
  };
  const services: TurnServices = {
    hooks,
    tools,
    models,
    sessionLog: options.sessionLog,
    histories: new HistoryCache(options.sessionLog),
    tokenCounters: new TokenCounters(),
    maxHistoryTurns: validMaxHistoryTurns(options.maxHistoryTurns),
    clock,
    background,
    runner,
    director: options.director ?? {},
    scenario: options.scenario ?? {},
    logger,
    generateTurnId: options.generateTurnId ?? randomUUID,
    committedWork,
    finishedCommits: new FinishedCommits(),
    limits,
    deadlines: new TurnDeadlines(clock, limits.turnDeadlineMs),
  };
  return new KernelHarness(services, root, background, closeCallbacks);
}

/** Earlier turns a turn reads by default: far more than any context window holds, still bounded. */
const DEFAULT_MAX_HISTORY_TURNS = 1_000;

function validMaxHistoryTurns(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_HISTORY_TURNS;
  if (!Number.isInteger(value) || value < 0) {
    throw new KernelError('KERNEL_HARNESS_INVALID', `maxHistoryTurns must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

/** The registry `model` or `models` gives (`undefined` with neither: an app provider may give it). */
function pickModels(options: HarnessOptions): ModelRegistry | undefined {
  if (options.model && options.models) throw new KernelError('KERNEL_HARNESS_INVALID', 'Give createHarness either `model` or `models`, not both');
  if (options.models) return options.models;
  if (options.model) return createModelRegistry(options.model);
  return undefined;
}

function setupContext(
  plugin: PluginDefinition<unknown>,
  config: unknown,
  root: DependencyContainer,
  scope: DependencyContainer,
  logger: Logger,
  hooks: HookRegistry,
  tools: ToolExecutor,
  closeCallbacks: Array<() => void | Promise<void>>,
  di: typeof import('../di/index.js'),
): PluginSetupContext<unknown> {
  const registrar = Object.fromEntries(
    HOOK_NAMES.map((hook) => [hook, (entry: HookEntry<typeof hook>) => hooks.add(plugin.name, hook, entry)]),
  ) as unknown as HookRegistrar;
  return {
    name: plugin.name,
    config,
    logger,
    container: scope,
    expose: <T>(token: InjectionToken<T>, value: T) => {
      root.register(token, { useValue: value });
    },
    provide: <T>(provider: ServiceProvider<T>) => {
      if (!root.isRegistered(provider.token, true)) di.registerProvider(scope, provider as ServiceProvider);
    },
    resolve: <T>(token: InjectionToken<T>) => di.resolveService(scope, token, plugin.name),
    hooks: registrar,
    registerTool: (tool) => tools.register(plugin.name, tool as never),
    onClose: (callback) => {
      closeCallbacks.push(callback);
    },
  };
}

class KernelHarness implements Harness {
  readonly #services: TurnServices;
  readonly #root: DependencyContainer;
  readonly #background: BackgroundTasks;
  readonly #closeCallbacks: Array<() => void | Promise<void>>;
  // Turns of one session run in call order; different sessions run concurrently.
  readonly #sessionQueues = new Map<string, Promise<unknown>>();
  // Aborted when close() starts: work still waiting for another process's turn lock gives up.
  readonly #closed = new AbortController();
  #closing: Promise<void> | undefined;

  constructor(
    services: TurnServices,
    root: DependencyContainer,
    background: BackgroundTasks,
    closeCallbacks: Array<() => void | Promise<void>>,
  ) {
    this.#services = services;
    this.#root = root;
    this.#background = background;
    this.#closeCallbacks = closeCallbacks;
  }

  get backgroundTasks(): number {
    return this.#background.size;
  }

  runTurn(rawInput: Parameters<Harness['runTurn']>[0], options: RunTurnOptions = {}): Promise<TurnResult> {
    // Not async (a closed harness or bad input still rejects): an async method returning the
    // queue's promise, and a queued function returning the turn's, each add promise jobs to the
    // start and the end of every turn.
    let input: ReturnType<typeof parseTurnInput>;
    try {
      this.#assertOpen();
      input = parseTurnInput(rawInput);
    } catch (error) {
      return Promise.reject(error);
    }
    // A committed turn whose postReview never finished (the process died) is finished first.
    return this.#enqueue(
      input.sessionId,
      async (services, heldTurn) => {
        await finishCommittedTurnQuietly(services, input.sessionId);
        // `return await`: adopting the returned promise would cost two more jobs than awaiting it.
        return await runTurn(services, input, options, undefined, heldTurn);
      },
      options.signal,
    );
  }

  finishCommittedTurn(sessionId: string): Promise<boolean> {
    if (this.#closing) return Promise.reject(new KernelError('KERNEL_HARNESS_CLOSED', 'This harness is closed; create a new one to finish turns'));
    return this.#enqueue(sessionId, (services) => finishCommittedTurn(services, sessionId));
  }

  async continueTurn(request: ContinueTurnRequest, options: RunTurnOptions = {}): Promise<TurnResult> {
    this.#assertOpen();
    const sessionId = sessionOf(request);
    return this.#enqueue(
      sessionId,
      async (services, heldTurn) => {
        const { input, continuation } = await planContinuation(services, request);
        await finishCommittedTurnQuietly(services, input.sessionId);
        return runTurn(services, input, options, continuation, heldTurn);
      },
      options.signal,
    );
  }

  async regenerateTurn(request: RegenerateTurnRequest, options: RunTurnOptions = {}): Promise<TurnResult> {
    this.#assertOpen();
    return this.#enqueue(
      sessionOf(request),
      async (services, heldTurn) => {
        // Planned in the queue: the step and "is it still the last turn" are read after the turns before it.
        const { input } = await planNextStep(services, request, 'regenerate');
        await finishCommittedTurnQuietly(services, input.sessionId);
        return runTurn(services, input, options, undefined, heldTurn);
      },
      options.signal,
    );
  }

  async selectStep(request: SelectStepRequest): Promise<CommittedTurnRecord> {
    this.#assertOpen();
    return this.#enqueue(sessionOf(request), (services) => selectStep(services, request));
  }

  async editTurn(request: EditTurnRequest): Promise<CommittedTurnRecord> {
    this.#assertOpen();
    return this.#enqueue(sessionOf(request), (services) => editTurn(services, request));
  }

  async removeTurns(request: RemoveTurnsRequest): Promise<string[]> {
    this.#assertOpen();
    return this.#enqueue(sessionOf(request), (services) => removeTurns(services, request));
  }

  #assertOpen(): void {
    if (this.#closing) throw new KernelError('KERNEL_HARNESS_CLOSED', 'This harness is closed; create a new one to run turns');
  }

  /**
   * Runs `work` after everything queued on the session in this harness (turns and chat controls
   * alike, in call order), holding the session's turn lock when the store has one: then other
   * processes on the same store wait too (see `session-turn-lock.ts`).
   * @param signal - cancels the wait for another process's turn (the caller's; close() cancels it too)
   */
  #enqueue<T>(sessionId: string, work: (services: TurnServices, heldTurn?: HeldSessionTurn) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const start = () => withSessionTurnLock(this.#services, sessionId, work, signal ? [signal, this.#closed.signal] : [this.#closed.signal]);
    // Queue entries never reject; a session with nothing queued starts at once.
    const previous = this.#sessionQueues.get(sessionId);
    const run = previous ? previous.then(start) : start();
    const forget = () => {
      if (this.#sessionQueues.get(sessionId) === settled) this.#sessionQueues.delete(sessionId);
    };
    const settled: Promise<void> = run.then(forget, forget);
    this.#sessionQueues.set(sessionId, settled);
    return run;
  }

  /**
   * Waits for running turns, including committed turns' postReview work (fibers in the harness's
   * scope, which the turns wait for, so a session's queue holds them too). With a grace
   * (`timeoutMs`), the postReview work still running when it ends is interrupted (its signal
   * aborts with `KERNEL_HARNESS_CLOSED`, and so does work of turns that commit later): a
   * committed turn cut short is finished by the next start.
   */
  async #drainTurns(graceMs: number | undefined): Promise<void> {
    const all = () => Promise.all([...this.#sessionQueues.values()]);
    if (graceMs === undefined) await all();
    else await runWithin(systemClock, graceMs, new AbortController().signal, () => 'grace', all).catch(() => undefined);
    await this.#services.committedWork.close(
      new KernelError('KERNEL_HARNESS_CLOSED', 'The harness closed before the postReview work of a committed turn finished; the next start finishes it'),
    );
    await all();
  }

  resolve<T>(token: InjectionToken<T>): T {
    return this.#root.resolve(token);
  }

  close(options: Parameters<Harness['close']>[0] = {}): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed.abort(new KernelError('KERNEL_HARNESS_CLOSED', 'The harness closed while this work waited for the session (another process was running a turn of it)'));
      await this.#drainTurns(options.timeoutMs);
      this.#services.deadlines.close();
      await this.#background.close(options);
      for (const callback of [...this.#closeCallbacks].reverse()) {
        try {
          await callback();
        } catch (error) {
          this.#services.logger.error('plugin close callback failed', { error: describeError(error) });
        }
      }
      await this.#root.dispose();
    })();
    return this.#closing;
  }
}
