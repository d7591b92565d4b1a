import type { BackgroundTaskHandle, BackgroundTasks } from '../background/background-tasks.js';
import type { ChatMessage, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { type EventKey, type NewSessionEvent, type SessionEvent, type SessionLog, serializeAhead } from '../ports/session-log.js';
import { HandlerContext } from './handler-context.js';
import type { LazyAbortController } from './lazy-abort-controller.js';
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
  /** The turn's cancellation; its AbortSignal is created when something needs one (see {@link TurnState.signal}). */
  readonly abort: LazyAbortController;
  readonly sessionLog: SessionLog;
  readonly models: ModelRegistry;
  readonly clock: Clock;
  readonly background: BackgroundTasks;
  /** Called with each event as it is queued (live progress). */
  readonly onQueued?: ((event: { readonly type: string; readonly data: unknown }) => void) | undefined;
}

/** Mutable per-turn state: context values, queued events and the turn's background tasks. */
export class TurnState {
  readonly init: TurnStateInit;
  readonly values = new Map<symbol, unknown>();
  /** Events queued since the last flush. */
  queued: NewSessionEvent[] = [];
  readonly startedTasks: BackgroundTaskHandle[] = [];
  // Built on first use: most turns start no background task and most handlers never read events.
  #events: TurnEvents | undefined;
  #turnWritten: Promise<void> | undefined;
  #releaseBackground: (() => void) | undefined;
  #released = false;
  // Live progress reports held back while the commit is stored (see `holdReports`).
  #heldReports: { readonly type: string; readonly data: unknown }[] | undefined;
  // The scheduled pass writing the queued events' texts ahead of the flush, if any.
  #ahead: NodeJS.Immediate | undefined;

  /** @param init - the turn's identity, input and services */
  constructor(init: TurnStateInit) {
    this.init = init;
  }

  /** The turn's AbortSignal (created on first read: check `init.abort.aborted` where a flag will do). */
  get signal(): AbortSignal {
    return this.init.abort.signal;
  }

  /** The turn's events as handlers see them (`ctx.events`). */
  get events(): TurnEvents {
    if (this.#events) return this.#events;
    const { sessionLog, sessionId } = this.init;
    this.#events = {
      append: (type: string, data: unknown, options?: AppendEventOptions) => {
        this.queue(type, data, options);
        this.#writeAheadSoon();
      },
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

  /** Queues an event for the next flush; `quiet` leaves its live progress report to the caller. */
  queue(type: string, data: unknown, options?: AppendEventOptions & { readonly quiet?: boolean }): void {
    const { turnId, step, clock } = this.init;
    const ignorable = options?.ignorable ?? true;
    const at = isoTime(clock.now());
    const key = options?.key;
    // Spelled out (no spread of an options-dependent object): one shape per case, built in one step.
    this.queued.push(key === undefined ? { turnId, step, type, ignorable, at, data } : { turnId, step, type, ignorable, at, key, data });
    // The commit is reported once it is stored (see run-turn.ts): a UI shows "saved" only then.
    if (options?.quiet || !this.init.onQueued) return;
    if (this.#heldReports) this.#heldReports.push({ type, data });
    else this.init.onQueued({ type, data });
  }

  /**
   * Holds the live progress reports of events queued from now on (postReview work that starts
   * during the commit) until {@link releaseReports}: a UI hears of them after "saved", never of
   * work for a turn whose commit then fails.
   */
  holdReports(): void {
    this.#heldReports ??= [];
  }

  /**
   * Ends {@link holdReports}: reports what was held, in order, or drops it.
   * @param deliver - false when the commit failed (nothing it held is reported)
   */
  releaseReports(deliver: boolean): void {
    const held = this.#heldReports;
    this.#heldReports = undefined;
    if (deliver && held) for (const report of held) this.init.onQueued?.(report);
  }

  // Handlers' events (the stage requests and results that make up most of a turn's bytes) get
  // their text written ahead; the kernel's own are small, and most are flushed as soon as queued.
  // A check-phase callback runs once the turn's code so far has run and before the loop sleeps on
  // the model's reply: the queued texts are written while the process waits, not after the
  // wake-up at the commit, when the same code runs several times slower.
  #writeAheadSoon(): void {
    this.#ahead ??= setImmediate(this.#serializeQueuedAhead);
  }

  // Every queued event's data text, for the next flush (a flushed batch is no longer `queued`).
  readonly #serializeQueuedAhead = (): void => {
    this.#ahead = undefined;
    for (const event of this.queued) serializeAhead(event);
  };

  /** Lets the turn's background tasks write their events (after the commit, the failure record, or an abort). */
  releaseBackground(): void {
    this.#released = true;
    this.#releaseBackground?.();
  }

  /** Appends every queued event in one batch and clears the queue. */
  flush(): Promise<readonly SessionEvent[]> {
    // Not an async function: resolving one with the append's promise would cost two more jobs.
    if (this.queued.length === 0) return Promise.resolve([]);
    const batch = this.queued;
    this.queued = [];
    // Nothing is left to write ahead: a turn that never waited (synchronous handlers, an
    // in-process model) runs no pass at all.
    if (this.#ahead !== undefined) {
      clearImmediate(this.#ahead);
      this.#ahead = undefined;
    }
    try {
      return this.init.sessionLog.append(this.init.sessionId, batch);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The context a director tool of `plugin` sees: the turn's signal as is, and the plugin's logger. */
  contextFor(plugin: string, signal: AbortSignal, logger: Logger): TurnContext {
    return new HandlerContext(this, plugin, logger, signal);
  }
}
