import { isAbortError } from '../abort.js';
import { describeError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { NewSessionEvent, SessionLog } from '../ports/session-log.js';
import { systemClock } from '../ports/clock.js';
import { runWithin } from '../timing/on-clock.js';
import { FiberScope } from './fiber-scope.js';

/** An event a background task records; the task's session, turn and step are filled in. */
export interface BackgroundEvent {
  readonly type: string;
  readonly data: unknown;
  readonly ignorable?: boolean;
  readonly key?: string;
}

/** What a background task receives. */
export interface BackgroundTaskContext {
  /** Aborts when the starting turn is aborted before commit, or when the harness closes. */
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly turnId: string;
  readonly step: number;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * Appends events to the session log, after the starting turn's own events (it waits for the
   * turn's commit if needed). Does nothing once the task is aborted.
   */
  appendEvents(events: readonly BackgroundEvent[]): Promise<void>;
}

/** The body of a background task. */
export type BackgroundTaskRun = (task: BackgroundTaskContext) => Promise<void>;

/** A started task. */
export interface BackgroundTaskHandle {
  readonly name: string;
  /** Settles when the task ends (never rejects; failures become `kernel/background-failed`). */
  readonly done: Promise<void>;
  abort(reason?: unknown): void;
}

/** Where a task belongs: its session, turn, and the plugin that started it. */
export interface BackgroundTaskOwner {
  readonly sessionId: string;
  readonly turnId: string;
  readonly step: number;
  readonly plugin: string;
  /**
   * Settles once the starting turn's own events are in the log (its commit, or its failure
   * record; or it was aborted). The task's appends wait for it, so a background result is never
   * ordered before the turn it belongs to; after an abort they are dropped.
   */
  readonly turnWritten?: Promise<void>;
}

/** How `close()` treats running tasks. */
export interface CloseBackgroundOptions {
  /** `abort` (default) cancels running tasks; `drain` waits for them. */
  readonly mode?: 'abort' | 'drain';
  /** With `drain`, abort whatever is still running after this long (default: wait forever). */
  readonly timeoutMs?: number;
}

/**
 * Tracks work that outlives a turn (e.g. DIO task polling and its retries). Every task is an
 * Effect fiber forked into the harness's scope: it is cancellable, its failures are recorded as
 * session events, and `close()` drains the scope or interrupts it, so no timer or request is left
 * behind — a task that ignores its signal is interrupted too, not waited for.
 */
export class BackgroundTasks {
  readonly #fibers = new FiberScope();
  readonly #sessionLog: SessionLog;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #closed = false;

  /**
   * @param sessionLog - where task events go
   * @param clock - the harness clock (passed to tasks)
   * @param logger - the harness logger
   */
  constructor(sessionLog: SessionLog, clock: Clock, logger: Logger) {
    this.#sessionLog = sessionLog;
    this.#clock = clock;
    this.#logger = logger;
  }

  /** Number of tasks still running. */
  get size(): number {
    return this.#fibers.size;
  }

  /**
   * Starts a task. Throws when the harness is closed (nothing would ever stop it).
   * @param name - a name for logs and events
   * @param owner - session, turn and plugin the task belongs to
   * @param run - the task body
   */
  start(name: string, owner: BackgroundTaskOwner, run: BackgroundTaskRun): BackgroundTaskHandle {
    if (this.#closed) throw new Error(`Cannot start background task "${name}": the harness is closed`);
    const controller = new AbortController();
    const logger = this.#logger.child({ plugin: owner.plugin, task: name });
    const appendEvents = async (events: readonly BackgroundEvent[]) => {
      if (owner.turnWritten) await owner.turnWritten;
      // An aborted task (turn aborted before commit, harness closed) leaves no stray event.
      if (controller.signal.aborted) return;
      const at = new Date(this.#clock.now()).toISOString();
      const batch: NewSessionEvent[] = events.map((event) => ({
        turnId: owner.turnId,
        step: owner.step,
        type: event.type,
        ignorable: event.ignorable ?? true,
        at,
        ...(event.key === undefined ? {} : { key: event.key }),
        data: event.data,
      }));
      await this.#sessionLog.append(owner.sessionId, batch);
    };
    const context: BackgroundTaskContext = {
      signal: controller.signal,
      sessionId: owner.sessionId,
      turnId: owner.turnId,
      step: owner.step,
      logger,
      clock: this.#clock,
      appendEvents,
    };
    // The body settles on its own: cancellation is not a failure, and a failure becomes an event.
    const body = async (): Promise<void> => {
      try {
        await run(context);
      } catch (error) {
        if (controller.signal.aborted && (isAbortError(error) || error === controller.signal.reason)) return;
        logger.error('background task failed', { error: describeError(error) });
        await appendEvents([{ type: 'kernel/background-failed', data: { task: name, plugin: owner.plugin, error: describeError(error) } }]).catch(
          (appendError: unknown) => logger.error('could not record background failure', { error: describeError(appendError) }),
        );
      }
    };
    const job = this.#fibers.fork(controller, body);
    return {
      name,
      done: job.done,
      abort: (reason?: unknown) => job.interrupt(reason ?? new DOMException(`Background task "${name}" was aborted`, 'AbortError')),
    };
  }

  /**
   * Stops accepting tasks, then aborts (default) or drains the running ones.
   * @param options - mode and drain timeout
   */
  async close(options: CloseBackgroundOptions = {}): Promise<void> {
    this.#closed = true;
    if (options.mode === 'drain') {
      if (options.timeoutMs === undefined) await this.#fibers.idle();
      else await runWithin(systemClock, options.timeoutMs, new AbortController().signal, () => 'timeout', () => this.#fibers.idle()).catch(() => undefined);
    }
    // Whatever still runs sees the close as its abort reason, then its fiber is interrupted.
    await this.#fibers.close(new DOMException('The harness was closed', 'AbortError'));
  }
}
