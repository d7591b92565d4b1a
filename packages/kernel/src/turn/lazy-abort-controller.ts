/**
 * A turn's AbortController whose AbortSignal is created only when something reads `signal`. In
 * Node an AbortSignal (an EventTarget) costs more to create and collect than everything a turn
 * through synchronous handlers and an in-process model does besides, and most such turns never
 * hand their signal to anything: the kernel's own checks read {@link aborted} and
 * {@link reason}. Code that listens (a model's HTTP call, a handler reading `ctx.signal`, a
 * race against a pending answer) reads `signal` and gets a real one, already aborted with the
 * same reason when the abort came first. Shaped like an AbortController, so whatever aborts an
 * AbortController (linked caller signals, the turn deadline, the harness's close grace) aborts it.
 */
export class LazyAbortController {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  // Pending races (see `race`) and followers (see `onAbort`): told of the abort without an AbortSignal.
  #racers: Set<(reason: unknown) => void> | undefined;

  /** Whether the turn was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The abort reason (never undefined once aborted: an `AbortError` when none was given). */
  get reason(): unknown {
    return this.#reason;
  }

  /** The turn's AbortSignal, created on first read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /**
   * Aborts (once; later calls are ignored, like an AbortController's).
   * @param reason - the reason; default a `DOMException` named `AbortError`
   */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.#reason);
    if (this.#racers) for (const racer of this.#racers) racer(this.#reason);
  }

  /**
   * Calls `listener` with the reason when the turn aborts (at once when it already has), without
   * an AbortSignal or event listener: a handler's own signal or a hook's time limit follows the
   * turn this way, so following it costs no signal of the turn's.
   * @param listener - called once, with the abort reason
   * @returns what stops following (safe to call more than once)
   */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return noop;
    }
    // A wrapper per follower: the same function given twice still counts twice.
    const once = (reason: unknown) => listener(reason);
    this.#racers ??= new Set();
    this.#racers.add(once);
    return () => {
      this.#racers?.delete(once);
    };
  }

  /**
   * Waits for `work`, but rejects with the abort reason as soon as the turn aborts, even when the
   * work ignores its signal (a model that never answers cannot hold the turn past its deadline).
   * Needs no AbortSignal or listener: the turn tells its pending races itself.
   * @param work - work already started
   * @returns the work's value
   */
  race<T>(work: PromiseLike<T>): Promise<T> {
    if (this.#aborted) {
      // The work's own later rejection is expected; it must not surface as an unhandled rejection.
      Promise.resolve(work).catch(noop);
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#racers ??= new Set();
      this.#racers.add(reject);
      work.then(
        (value) => {
          this.#racers?.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.#racers?.delete(reject);
          reject(error);
        },
      );
    });
  }
}

function noop(): void {}
