import type { BackgroundTaskHandle, BackgroundTaskRun } from '../background/background-tasks.js';
import type { ContextKey } from '../context-keys.js';
import { KernelError } from '../errors.js';
import type { ChatMessage, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { TurnContext, TurnEvents } from './turn-context.js';
import type { Scenario, TurnInput } from './turn-input.js';
import type { TurnState } from './turn-state.js';

/**
 * A handler's view of the turn: shared state, plus the handler's own signal and scoped logger.
 * One per handler call, so it is the only object a handler call allocates: the handler's signal
 * (turn signal + the handler's timeout) is a linked controller created only when the handler
 * reads `signal` — most handlers are synchronous or never look at it, and a controller with a
 * listener per call would dominate the kernel's per-turn cost.
 */
export class HandlerContext implements TurnContext {
  readonly #state: TurnState;
  readonly #plugin: string;
  // A signal given as is (director tools get the turn's); otherwise the handler's own, on demand.
  readonly #given: AbortSignal | undefined;
  #link: { readonly controller: AbortController; readonly dispose: () => void } | undefined;
  readonly logger: Logger;

  /**
   * @param state - the turn
   * @param plugin - whose handler (or tool) runs
   * @param logger - the plugin's logger
   * @param signal - the signal to hand out as is; omitted = the handler's own, linked to the turn's
   */
  constructor(state: TurnState, plugin: string, logger: Logger, signal?: AbortSignal) {
    this.#state = state;
    this.#plugin = plugin;
    this.logger = logger;
    this.#given = signal;
  }

  /** Aborts when the turn aborts or this handler times out. */
  get signal(): AbortSignal {
    if (this.#given) return this.#given;
    if (!this.#link) {
      // Follows the turn's controller directly: no AbortSignal of the turn's is made for it and
      // none gets a listener (one per handler call), the same abort reaches this signal.
      const controller = new AbortController();
      const dispose = this.#state.init.abort.onAbort((reason) => controller.abort(reason));
      this.#link = { controller, dispose };
    }
    return this.#link.controller.signal;
  }

  /** Aborts the handler's own signal (when it was ever read) with `reason`: the handler timed out. */
  abortHandler(reason: unknown): void {
    this.#link?.controller.abort(reason);
  }

  /** Detaches the handler's signal from the turn's, so a finished handler leaves no listener behind. */
  dispose(): void {
    this.#link?.dispose();
  }

  get turnId(): string {
    return this.#state.init.turnId;
  }
  get sessionId(): string {
    return this.#state.init.sessionId;
  }
  get step(): number {
    return this.#state.init.step;
  }
  get input(): string {
    return this.#state.init.input.text;
  }
  get turnInput(): TurnInput {
    return this.#state.init.input;
  }
  get userId(): string | undefined {
    return this.#state.init.input.userId;
  }
  get scenario(): Scenario {
    return this.#state.init.scenario;
  }
  get history(): readonly ChatMessage[] {
    return this.#state.init.history;
  }
  get events(): TurnEvents {
    return this.#state.events;
  }
  get models(): ModelRegistry {
    return this.#state.init.models;
  }
  get clock(): Clock {
    return this.#state.init.clock;
  }

  startBackground(name: string, run: BackgroundTaskRun): BackgroundTaskHandle {
    const { sessionId, turnId, step, background } = this.#state.init;
    const handle = background.start(name, { sessionId, turnId, step, plugin: this.#plugin, turnWritten: this.#state.turnWritten }, run);
    this.#state.startedTasks.push(handle);
    return handle;
  }

  get<T>(key: ContextKey<T>): T | undefined {
    return this.#state.values.get(key.id) as T | undefined;
  }

  require<T>(key: ContextKey<T>): T {
    if (!this.#state.values.has(key.id)) {
      throw new KernelError('KERNEL_CONTEXT_KEY_MISSING', `The turn context has no "${key.name}"; a plugin that provides it must run first`, {
        plugin: this.#plugin,
      });
    }
    return this.#state.values.get(key.id) as T;
  }

  set<T>(key: ContextKey<T>, value: T): void {
    this.#state.values.set(key.id, value);
  }

  has(key: ContextKey<unknown>): boolean {
    return this.#state.values.has(key.id);
  }
}
