import { setMaxListeners } from 'node:events';
import type { Clock, Logger } from '@troupe/kernel';
import { describeError, linkedController } from '@troupe/kernel/util';
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
  /** The task's work (compile and store a new version); must honour `signal`. */
  readonly work: (task: TaskRecord, signal: AbortSignal) => Promise<TaskOutcome>;
}

type TerminalFields = Pick<TaskRecord, 'status' | 'promptChanged'> & Partial<TaskRecord>;

/** Default of {@link TaskRunnerOptions.maxConcurrent}. */
export const DEFAULT_MAX_CONCURRENT_COMPILES = 4;

/**
 * Runs accepted tasks in the background: `processing → succeeded | failed | timed_out`, each
 * under a timeout on the injected clock. Nothing a task does can reject into the void: every
 * failure — including failing to record the terminal status — is caught and logged.
 *
 * When the terminal status cannot be written (storage failure), the task stays `processing` in
 * storage and is run again by {@link DioService.resume} on the next start; its work is
 * idempotent per request id, so the re-run reports the same outcome.
 */
export class TaskRunner {
  readonly #options: TaskRunnerOptions;
  readonly #running = new Set<Promise<void>>();
  readonly #shutdown = new AbortController();
  // Compile slots: a task takes one before its work starts (300 schedules ≠ 300 model calls).
  readonly #maxConcurrent: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  /** @param options - store, logger, clock, timeout and the work */
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
    const run = this.#run(task)
      // Backstop: #run catches everything it expects; anything else is logged, never unhandled.
      .catch((error: unknown) => this.#options.logger.error('task runner failed', { requestId: task.requestId, error: describeError(error) }))
      .finally(() => this.#running.delete(run));
    this.#running.add(run);
  }

  /** Resolves when no task is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /** Stops running tasks (they stay `processing` and resume on the next start) and waits for them. */
  async close(): Promise<void> {
    this.#shutdown.abort(new DOMException('The DIO service is shutting down', 'AbortError'));
    await this.idle();
  }

  async #run(task: TaskRecord): Promise<void> {
    if (this.#shutdown.signal.aborted) return;
    if (!(await this.#acquire())) return; // shut down while queued: stays `processing`, resumes on the next start
    try {
      await this.#compile(task);
    } finally {
      this.#release();
    }
  }

  // Waits for a compile slot; false when the service shuts down first.
  async #acquire(): Promise<boolean> {
    if (this.#active < this.#maxConcurrent) {
      this.#active += 1;
      return true;
    }
    const signal = this.#shutdown.signal;
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

  async #compile(task: TaskRecord): Promise<void> {
    const { logger, clock, taskTimeoutMs, work } = this.#options;
    const { controller, dispose } = linkedController(this.#shutdown.signal);
    const timer = new AbortController();
    let timedOut = false;
    clock.sleep(taskTimeoutMs, timer.signal).then(
      () => {
        timedOut = true;
        controller.abort(new DOMException('task timed out', 'TimeoutError'));
      },
      () => {},
    );
    let terminal: TerminalFields;
    try {
      const outcome = await work(task, controller.signal);
      // Work that finished has been stored, even if a timeout or shutdown came in meanwhile.
      terminal = { status: 'succeeded', ...outcome };
    } catch (error) {
      // Shutdown: leave the task `processing`; the next process resumes it.
      if (this.#shutdown.signal.aborted && !timedOut) return;
      if (timedOut) {
        terminal = { status: 'timed_out', promptChanged: false, errorCode: 'TASK_TIMED_OUT', errorMessage: `Compilation took longer than ${taskTimeoutMs} ms` };
      } else {
        const described = describeError(error);
        logger.error('task failed', { requestId: task.requestId, error: described });
        terminal = { status: 'failed', promptChanged: false, errorCode: described.code ?? 'TASK_FAILED', errorMessage: described.message };
      }
    } finally {
      timer.abort();
      dispose();
    }
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
