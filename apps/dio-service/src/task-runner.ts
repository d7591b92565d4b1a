import { setMaxListeners } from 'node:events';
import type { Clock, Logger } from '@troupe/kernel';
import { describeError, FiberScope, linkedController, runWithin } from '@troupe/kernel/util';
import type { DioStore } from './dio-store.js';
import type { TaskRecord } from './records.js';

/** What a task's work reports when it succeeds. */
export interface TaskOutcome {
  readonly promptChanged: boolean;
  readonly sourceVersionId?: string;
  readonly compiledPromptSha256?: string;
}

/** Options of {@link TaskRunner}. */
export interface TaskRunnerOptions {
  readonly store: DioStore;
  readonly logger: Logger;
  readonly clock: Clock;
  /** A task still working after this long becomes `timed_out` (ms; time spent queued does not count). */
  readonly taskTimeoutMs: number;
  /** Most tasks compiling at once; the rest wait their turn, still `processing` (default 4). */
  readonly maxConcurrent?: number;
  /**
   * How long {@link TaskRunner.close} waits for running tasks after aborting them (a task storing
   * its version finishes); whatever still runs then is interrupted (ms, default 5 000).
   */
  readonly shutdownGraceMs?: number;
  /** The task's work (compile and store a new version); must honour `signal`. */
  readonly work: (task: TaskRecord, signal: AbortSignal) => Promise<TaskOutcome>;
}

type TerminalFields = Pick<TaskRecord, 'status' | 'promptChanged'> & Partial<TaskRecord>;

/** Default of {@link TaskRunnerOptions.maxConcurrent}. */
export const DEFAULT_MAX_CONCURRENT_COMPILES = 4;
/** Default of {@link TaskRunnerOptions.shutdownGraceMs}. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/**
 * Runs accepted tasks in the background: `processing → succeeded | failed | timed_out`, each
 * under the kernel's deadline (`runWithin`) on the injected clock. Every task is a fiber in one
 * scope ({@link FiberScope}), so {@link TaskRunner.close} can drain them and then interrupt what
 * is left: no task outlives the service, not even one whose work ignores its signal. Nothing a
 * task does can reject into the void: every failure — including failing to record the terminal
 * status — is caught and logged.
 *
 * When the terminal status cannot be written (storage failure), or the service shut down first,
 * the task stays `processing` in storage and is run again by {@link DioService.resume} on the
 * next start; its work is idempotent per request id, so the re-run reports the same outcome.
 */
export class TaskRunner {
  readonly #options: TaskRunnerOptions;
  readonly #tasks = new FiberScope();
  readonly #shutdown = new AbortController();
  // Compile slots: a task takes one before its work starts (300 schedules ≠ 300 model calls).
  readonly #maxConcurrent: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  /** @param options - store, logger, clock, timeout, grace period and the work */
  constructor(options: TaskRunnerOptions) {
    this.#options = options;
    this.#maxConcurrent = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_COMPILES;
    // Every running task listens for shutdown; many concurrent tasks are normal, not a leak.
    setMaxListeners(0, this.#shutdown.signal);
  }

  /** Tasks compiling right now (at most `maxConcurrent`). */
  get compiling(): number {
    return this.#active;
  }

  /** Tasks accepted and waiting for a compile slot. */
  get queued(): number {
    return this.#waiting.length;
  }

  /**
   * Starts a task in the background (no-op after {@link TaskRunner.close}).
   * @param task - a task record in `processing`
   */
  start(task: TaskRecord): void {
    if (this.#shutdown.signal.aborted) return;
    const { controller, dispose } = linkedController(this.#shutdown.signal);
    let holdsSlot = false;
    const job = this.#tasks.fork(controller, async () => {
      // Shut down while queued: the task stays `processing` and resumes on the next start.
      if (!(await this.#acquire(controller.signal))) return;
      holdsSlot = true;
      await this.#compile(task, controller.signal);
    });
    // The slot goes back when the job ends, also when close() interrupted it.
    const finish = () => {
      dispose();
      if (holdsSlot) this.#release();
      holdsSlot = false;
    };
    // Backstop: #compile catches everything it expects; anything else is logged, never unhandled.
    job.result.then(finish, (error: unknown) => {
      finish();
      if (!controller.signal.aborted) this.#options.logger.error('task runner failed', { requestId: task.requestId, error: describeError(error) });
    });
  }

  /** Resolves when no task is running. */
  idle(): Promise<void> {
    return this.#tasks.idle();
  }

  /**
   * Stops running tasks (they stay `processing` and resume on the next start): aborts them, waits
   * up to the grace period for them to end (a task storing its version finishes and is recorded),
   * then interrupts whatever still runs.
   */
  async close(): Promise<void> {
    const reason = new DOMException('The DIO service is shutting down', 'AbortError');
    this.#shutdown.abort(reason);
    const { clock, shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS } = this.#options;
    await runWithin(clock, shutdownGraceMs, new AbortController().signal, () => 'grace period over', () => this.#tasks.idle()).catch(() => undefined);
    await this.#tasks.close(reason);
  }

  // Waits for a compile slot; false when the service shuts down first.
  async #acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    if (this.#active < this.#maxConcurrent) {
      this.#active += 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const onShutdown = () => resolve(false);
      signal.addEventListener('abort', onShutdown, { once: true });
      this.#waiting.push(() => {
        signal.removeEventListener('abort', onShutdown);
        // The slot is handed over as is (#active unchanged), unless shutdown came first.
        if (signal.aborted) {
          this.#release();
          resolve(false);
        } else resolve(true);
      });
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active -= 1;
  }

  async #compile(task: TaskRecord, signal: AbortSignal): Promise<void> {
    const { logger, clock, taskTimeoutMs, work } = this.#options;
    const timedOut = new DOMException('task timed out', 'TimeoutError');
    let pending: Promise<TaskOutcome> | undefined;
    let terminal: TerminalFields;
    try {
      // The work's signal aborts at the deadline or on shutdown.
      const outcome = await runWithin(clock, taskTimeoutMs, signal, () => timedOut, (workSignal) => {
        pending = work(task, workSignal);
        return pending;
      });
      terminal = { status: 'succeeded', ...outcome };
    } catch (error) {
      const stopped = error === timedOut || signal.aborted;
      // The deadline and shutdown only abort the work's signal: wait for the work itself. One
      // that was already storing its version finishes, and is recorded as succeeded.
      const late = stopped && pending ? await pending.then((outcome) => ({ outcome }), () => undefined) : undefined;
      if (late) terminal = { status: 'succeeded', ...late.outcome };
      // Shutdown: leave the task `processing`; the next process resumes it.
      else if (error !== timedOut && signal.aborted) return;
      else if (error === timedOut) {
        terminal = { status: 'timed_out', promptChanged: false, errorCode: 'TASK_TIMED_OUT', errorMessage: `Compilation took longer than ${taskTimeoutMs} ms` };
      } else {
        const described = describeError(error);
        logger.error('task failed', { requestId: task.requestId, error: described });
        terminal = { status: 'failed', promptChanged: false, errorCode: described.code ?? 'TASK_FAILED', errorMessage: described.message };
      }
    }
    // Interrupted by close() while the work ran on: the next start re-runs the task, not this process.
    if (this.#tasks.closed) return;
    await this.#record(task, terminal);
  }

  // Writes the terminal status; a storage failure here is logged and the task stays `processing`.
  async #record(task: TaskRecord, terminal: TerminalFields): Promise<void> {
    const { store, logger, clock } = this.#options;
    try {
      await store.writeTask({ ...task, ...terminal, updatedAt: new Date(clock.now()).toISOString() });
    } catch (error) {
      logger.error('could not record the task status; the task stays processing and is run again on the next start', {
        requestId: task.requestId,
        status: terminal.status,
        error: describeError(error),
      });
      return;
    }
    logger.info('task finished', { requestId: task.requestId, status: terminal.status, promptChanged: terminal.promptChanged });
  }
}
