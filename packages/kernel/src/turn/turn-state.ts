import type { BackgroundTaskHandle, BackgroundTaskRun, BackgroundTasks } from '../background/background-tasks.js';
import type { ContextKey } from '../context-keys.js';
import { KernelError } from '../errors.js';
import type { ChatMessage, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { EventKey, NewSessionEvent, SessionEvent, SessionLog } from '../ports/session-log.js';
import type { AppendEventOptions, TurnContext, TurnEvents } from './turn-context.js';
import type { Scenario, TurnInput } from './turn-input.js';

// The events of a turn are mostly queued within the same millisecond: one Date and ISO string
// for all of them.
let lastIsoMs = Number.NaN;
let lastIso = '';
function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}

/** Everything a turn shares between its handlers; one per `runTurn` call. */
export interface TurnStateInit {
  readonly turnId: string;
  readonly sessionId: string;
  readonly step: number;
  readonly input: TurnInput;
  readonly scenario: Scenario;
  readonly history: readonly ChatMessage[];
  readonly signal: AbortSignal;
  readonly sessionLog: SessionLog;
  readonly models: ModelRegistry;
  readonly clock: Clock;
  readonly background: BackgroundTasks;
  /** Called with each event as it is queued (live progress). */
  readonly onQueued?: (event: { readonly type: string; readonly data: unknown }) => void;
}

/** Mutable per-turn state: context values, queued events and the turn's background tasks. */
export class TurnState {
  readonly init: TurnStateInit;
  readonly values = new Map<symbol, unknown>();
  readonly queued: NewSessionEvent[] = [];
  readonly startedTasks: BackgroundTaskHandle[] = [];
  // Built on first use: most turns start no background task and most handlers never read events.
  #events: TurnEvents | undefined;
  #turnWritten: Promise<void> | undefined;
  #releaseBackground: (() => void) | undefined;
  #released = false;

  /** @param init - the turn's identity, input and services */
  constructor(init: TurnStateInit) {
    this.init = init;
  }

  /** The turn's events as handlers see them (`ctx.events`). */
  get events(): TurnEvents {
    if (this.#events) return this.#events;
    const { sessionLog, sessionId } = this.init;
    this.#events = {
      append: (type: string, data: unknown, options?: AppendEventOptions) => this.queue(type, data, options),
      pending: () => this.queued.map(({ type, data }) => ({ type, data })),
      read: (): Promise<readonly SessionEvent[]> => sessionLog.read(sessionId),
      findLatest: (key: EventKey) => sessionLog.findLatest(sessionId, key),
    };
    return this.#events;
  }

  /** Settles when the turn's own events are written (commit or failure) or the turn is aborted. */
  get turnWritten(): Promise<void> {
    this.#turnWritten ??= this.#released
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#releaseBackground = resolve;
        });
    return this.#turnWritten;
  }

  /** Queues an event for the next flush. */
  queue(type: string, data: unknown, options: AppendEventOptions = {}): void {
    this.queued.push({
      turnId: this.init.turnId,
      step: this.init.step,
      type,
      ignorable: options.ignorable ?? true,
      at: isoTime(this.init.clock.now()),
      ...(options.key === undefined ? {} : { key: options.key }),
      data,
    });
    this.init.onQueued?.({ type, data });
  }

  /** Lets the turn's background tasks write their events (after the commit, the failure record, or an abort). */
  releaseBackground(): void {
    this.#released = true;
    this.#releaseBackground?.();
  }

  /** Appends every queued event in one batch and clears the queue. */
  async flush(): Promise<readonly SessionEvent[]> {
    if (this.queued.length === 0) return [];
    const batch = this.queued.splice(0, this.queued.length);
    return this.init.sessionLog.append(this.init.sessionId, batch);
  }

  /** The context a handler of `plugin` sees, with its own signal and logger. */
  contextFor(plugin: string, signal: AbortSignal | { readonly signal: AbortSignal }, logger: Logger): TurnContext {
    return new HandlerContext(this, plugin, signal, logger);
  }
}

/** A handler's view of the turn: shared state, plus the handler's signal and scoped logger. */
class HandlerContext implements TurnContext {
  readonly #state: TurnState;
  readonly #plugin: string;
  // Either a signal, or a lazy holder that creates the handler's signal on first read.
  readonly #signal: AbortSignal | { readonly signal: AbortSignal };
  readonly logger: Logger;

  constructor(state: TurnState, plugin: string, signal: AbortSignal | { readonly signal: AbortSignal }, logger: Logger) {
    this.#state = state;
    this.#plugin = plugin;
    this.#signal = signal;
    this.logger = logger;
  }

  get signal(): AbortSignal {
    return this.#signal instanceof AbortSignal ? this.#signal : this.#signal.signal;
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
