import { Cause, Effect, Exit, Scope } from 'effect';
import { abortReason } from '../abort.js';
import { settledSoon } from '../hooks/settled-soon.js';

/** One piece of work forked into a {@link FiberScope}. */
export interface ScopedJob<T> {
  /**
   * The work's value or failure. Once the job is interrupted it rejects with the reason its
   * controller was aborted with, at once, even when the work ignores its signal.
   */
  readonly result: Promise<T>;
  /** Settles (never rejects) when the job has ended. */
  readonly done: Promise<void>;
  /** Aborts the job's controller with `reason`, then interrupts its fiber. */
  interrupt(reason: unknown): void;
}

/** What a job's work listens to: an AbortController, or anything shaped like one. */
export type JobController = Pick<AbortController, 'signal' | 'abort'>;

interface RunningJob {
  readonly controller: JobController;
  readonly done: Promise<void>;
}

/**
 * Work that outlives the call that started it (background tasks, a committed turn's postReview),
 * run as Effect fibers forked into one scope owned by the harness. Closing the scope interrupts
 * every fiber still running, so nothing started here outlives the harness. Each job brings the
 * AbortController its work listens to: an interruption aborts it first, so the work's own I/O
 * stops too, and the job settles at once even when the work ignores its signal. Effect types
 * stay in this file.
 */
export class FiberScope {
  readonly #scope = Scope.makeUnsafe();
  readonly #running = new Set<RunningJob>();
  #closed: { readonly reason: unknown } | undefined;

  /** Number of jobs still running. */
  get size(): number {
    return this.#running.size;
  }

  /** Whether {@link close} was called (new jobs fail at once with its reason). */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /**
   * Starts `work` now, as a fiber in this scope. After {@link close} the work never starts: the
   * controller is aborted with the close reason and the result rejects with it.
   * @param controller - the controller `work` listens to (aborted when the job is interrupted)
   * @param work - the job
   * @returns the job
   */
  fork<T>(controller: JobController, work: () => PromiseLike<T>): ScopedJob<T> {
    if (this.#closed) {
      controller.abort(this.#closed.reason);
      const result = Promise.reject(abortReason(controller.signal));
      result.catch(noop); // a caller that only waits for `done` leaves no unhandled rejection
      return { result, done: Promise.resolve(), interrupt: noop };
    }
    // Started immediately, in this call: no scheduler hop between the caller and its work.
    const fiber = Effect.runSync(Effect.forkIn(Effect.tryPromise({ try: () => work(), catch: (error) => error }), this.#scope, { startImmediately: true }));
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => {
      markDone = resolve;
    });
    const running: RunningJob = { controller, done };
    const result = new Promise<T>((resolve, reject) => {
      fiber.addObserver((exit) => {
        this.#running.delete(running);
        markDone();
        if (Exit.isSuccess(exit)) resolve(exit.value);
        else reject(Cause.hasInterruptsOnly(exit.cause) ? abortReason(controller.signal) : Cause.squash(exit.cause));
      });
    });
    result.catch(noop); // a caller that only waits for `done` leaves no unhandled rejection
    if (fiber.pollUnsafe() === undefined) this.#running.add(running);
    return {
      result,
      done,
      interrupt: (reason: unknown) => {
        controller.abort(reason);
        fiber.interruptUnsafe();
      },
    };
  }

  /**
   * Runs `work` and resolves with its result, like {@link fork}, except that work which settles
   * within `probeJobs` promise jobs (it waited on nothing: synchronous handlers, in-memory
   * stores) costs no fiber — it can no longer outlive its caller. Work still pending then is
   * handed to a fiber in this scope, so {@link close} interrupts it.
   * @param controller - the controller `work` listens to (aborted when the job is interrupted)
   * @param work - the job
   * @param probeJobs - how many promise jobs to wait before forking
   * @returns the work's value
   * @throws the work's failure; the close reason once interrupted (or when already closed)
   */
  run<T>(controller: JobController, work: () => PromiseLike<T>, probeJobs?: number): Promise<T> {
    if (this.#closed) return this.fork(controller, work).result;
    let pending: PromiseLike<T>;
    try {
      pending = work();
    } catch (error) {
      return Promise.reject(error);
    }
    return settledSoon(pending, probeJobs).then((soon) => (soon ? soon.value : this.#follow(controller, pending)));
  }

  // The result of work already running, tracked by a fiber of this scope. The caller resumes
  // straight from the work's own settlement, and the fiber hears of it one check phase later:
  // Effect's bookkeeping for the fiber's end never runs between the work ending and its caller
  // going on (a committed turn's postReview ends the turn; its caller is waiting). An interruption
  // still rejects at once with the controller's reason.
  #follow<T>(controller: JobController, pending: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      pending.then(resolve, reject);
      this.fork(controller, () => afterCheckPhase(pending)).result.catch(reject);
    });
  }

  /** Settles when every job running now, and every job forked meanwhile, has ended. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running].map((job) => job.done));
  }

  /**
   * Refuses new jobs and interrupts every running one: each controller is aborted with `reason`
   * first, then the scope is closed (its fibers interrupted). Resolves when all have ended.
   * @param reason - what the jobs' signals abort with (and what their results reject with)
   */
  async close(reason: unknown): Promise<void> {
    this.#closed ??= { reason };
    for (const job of this.#running) job.controller.abort(this.#closed.reason);
    await Effect.runPromise(Scope.close(this.#scope, Exit.void));
    await this.idle();
  }
}

function noop(): void {}

// `pending`'s outcome, one check phase (`setImmediate`) after it settles.
function afterCheckPhase<T>(pending: PromiseLike<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    pending.then(
      (value) => setImmediate(resolve, value),
      (error: unknown) => setImmediate(reject, error),
    );
  });
}
