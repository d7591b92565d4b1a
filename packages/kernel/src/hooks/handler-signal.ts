import { abortReason } from '../abort.js';

/**
 * A handler's cancellation signal, created only when the handler reads it. Most handlers are
 * synchronous or never look at the signal, and creating a linked AbortController per call would
 * dominate the kernel's per-turn overhead; this keeps the common path allocation-free.
 */
export class LazyHandlerSignal {
  readonly #turnSignal: AbortSignal;
  #controller: AbortController | undefined;
  #onTurnAbort: (() => void) | undefined;

  /** @param turnSignal - the turn's signal, which the handler's signal follows */
  constructor(turnSignal: AbortSignal) {
    this.#turnSignal = turnSignal;
  }

  /** The handler's signal: aborts when the turn aborts or the handler times out. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#turnSignal.aborted) controller.abort(abortReason(this.#turnSignal));
      else {
        this.#onTurnAbort = () => controller.abort(abortReason(this.#turnSignal));
        this.#turnSignal.addEventListener('abort', this.#onTurnAbort, { once: true });
      }
    }
    return this.#controller.signal;
  }

  /** Aborts the handler's signal (if anyone is listening) with `reason`. */
  abort(reason: unknown): void {
    this.#controller?.abort(reason);
  }

  /** Detaches from the turn signal so finished handlers leave no listeners behind. */
  dispose(): void {
    if (this.#onTurnAbort) this.#turnSignal.removeEventListener('abort', this.#onTurnAbort);
    this.#onTurnAbort = undefined;
  }
}
