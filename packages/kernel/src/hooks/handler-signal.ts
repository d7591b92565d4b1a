import { linkedController } from '../abort.js';

/**
 * A handler's cancellation signal, created only when the handler reads it. Most handlers are
 * synchronous or never look at the signal, and creating a linked AbortController per call would
 * dominate the kernel's per-turn overhead; this keeps the common path allocation-free.
 */
export class LazyHandlerSignal {
  readonly #turnSignal: AbortSignal;
  #link: ReturnType<typeof linkedController> | undefined;

  /** @param turnSignal - the turn's signal, which the handler's signal follows */
  constructor(turnSignal: AbortSignal) {
    this.#turnSignal = turnSignal;
  }

  /** The handler's signal: aborts when the turn aborts or the handler times out. */
  get signal(): AbortSignal {
    this.#link ??= linkedController(this.#turnSignal);
    return this.#link.controller.signal;
  }

  /** Aborts the handler's signal (if anyone is listening) with `reason`. */
  abort(reason: unknown): void {
    this.#link?.controller.abort(reason);
  }

  /** Detaches from the turn signal so finished handlers leave no listeners behind. */
  dispose(): void {
    this.#link?.dispose();
  }
}
