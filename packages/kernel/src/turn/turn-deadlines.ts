import { KernelError } from '../errors.js';
import { type Clock, systemClock } from '../ports/clock.js';

/** A running turn's deadline. */
export interface TurnDeadline {
  /** Whether the deadline passed (and aborted the turn). */
  readonly fired: boolean;
  /** The error the turn was aborted with. */
  readonly error: KernelError;
  /** Stops the deadline (at commit: a committing turn is never cut halfway). */
  disarm(): void;
}

interface Armed {
  readonly at: number;
  readonly controller: AbortController;
  readonly deadline: ArmedDeadline;
}

/**
 * The turn deadlines of one harness, kept by a single wake-up on the harness clock. Every turn of
 * a harness has the same `turnDeadlineMs` and starts later than the ones before it, so the
 * oldest running turn always expires first: one wake-up, set for it, serves every running turn,
 * and a turn's deadline costs an entry in a set instead of its own timer, AbortController and
 * Effect fiber (which together were about a fifth of the kernel's per-turn cost). The wake-up is
 * cancelled when no turn runs, so an idle harness leaves no timer behind.
 */
export class TurnDeadlines {
  readonly #clock: Clock;
  readonly #ms: number;
  // Insertion order is deadline order (same length, later starts).
  readonly #armed = new Set<Armed>();
  #wake: { readonly at: number; readonly cancel: () => void } | undefined;

  /**
   * @param clock - the harness clock (virtual in tests)
   * @param ms - the turn deadline (`turnDeadlineMs`)
   */
  constructor(clock: Clock, ms: number) {
    this.#clock = clock;
    this.#ms = ms;
  }

  /**
   * Arms a turn's deadline: when `turnDeadlineMs` pass, `controller` is aborted with a
   * `KERNEL_TURN_DEADLINE_EXCEEDED` error, so every handler, model call and wait of the turn ends.
   * @param controller - the turn's controller
   * @returns the deadline handle (disarm it when the turn commits or ends)
   */
  arm(controller: AbortController): TurnDeadline {
    const deadline = new ArmedDeadline(this.#ms, () => this.#disarm(armed));
    const armed: Armed = { at: this.#clock.now() + this.#ms, controller, deadline };
    this.#armed.add(armed);
    this.#schedule();
    return deadline;
  }

  #disarm(armed: Armed): void {
    if (!this.#armed.delete(armed) || this.#armed.size > 0) return;
    this.#wake?.cancel();
    this.#wake = undefined;
  }

  /** Makes sure a wake-up is set no later than the oldest running turn's deadline. */
  #schedule(): void {
    const first = this.#armed.values().next();
    if (first.done) return;
    const at = first.value.at;
    if (this.#wake && this.#wake.at <= at) return;
    this.#wake?.cancel();
    this.#wake = { at, cancel: wakeAt(this.#clock, at - this.#clock.now(), () => this.#expire()) };
  }

  /** Aborts every turn whose deadline has passed, then sets the wake-up for the next one. */
  #expire(): void {
    this.#wake = undefined;
    const now = this.#clock.now();
    for (const armed of this.#armed) {
      if (armed.at > now) break;
      this.#armed.delete(armed);
      armed.deadline.fire(armed.controller);
    }
    this.#schedule();
  }
}

class ArmedDeadline implements TurnDeadline {
  readonly #ms: number;
  readonly #disarm: () => void;
  // Built when the deadline fires (or someone asks): a KernelError per turn would cost its stack.
  #error: KernelError | undefined;
  fired = false;

  constructor(ms: number, disarm: () => void) {
    this.#ms = ms;
    this.#disarm = disarm;
  }

  get error(): KernelError {
    this.#error ??= new KernelError('KERNEL_TURN_DEADLINE_EXCEEDED', `The turn did not finish within its deadline of ${this.#ms} ms (turnDeadlineMs); nothing was committed`, {
      details: { turnDeadlineMs: this.#ms },
    });
    return this.#error;
  }

  fire(controller: AbortController): void {
    this.fired = true;
    controller.abort(this.error);
  }

  disarm(): void {
    this.#disarm();
  }
}

/**
 * Calls `wake` after `ms` on `clock`; returns the function that cancels it. The system clock gets a
 * plain timer (no AbortController: this runs whenever a harness goes from idle to busy).
 */
function wakeAt(clock: Clock, ms: number, wake: () => void): () => void {
  if (clock === systemClock) {
    const timer = setTimeout(wake, Math.max(0, ms));
    return () => clearTimeout(timer);
  }
  const stop = new AbortController();
  clock.sleep(Math.max(0, ms), stop.signal).then(wake, () => {});
  return () => stop.abort(CANCELLED);
}

// A shared reason: aborting without one would build a DOMException each time.
const CANCELLED = Symbol('turn deadline wake-up cancelled');
