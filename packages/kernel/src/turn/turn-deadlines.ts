import { KernelError } from '../errors.js';
import { type Clock, systemClock } from '../ports/clock.js';

/** A running turn's deadline. */
export interface TurnDeadline {
  /** Whether the deadline passed (and aborted the turn). */
  readonly fired: boolean;
  /** The error the turn was aborted with. */
  readonly error: KernelError;
  /** Stops the deadline (at commit: a committing turn is never cut halfway). Idempotent. */
  disarm(): void;
}

/** What a deadline aborts: the turn's controller, or anything shaped like one. */
export type DeadlineController = Pick<AbortController, 'abort'>;

/**
 * The turn deadlines of one harness, kept by a single wake-up on the harness clock. Every turn of
 * a harness has the same `turnDeadlineMs` and starts later than the ones before it, so the
 * oldest running turn always expires first: one wake-up, set for it, serves every running turn,
 * and a turn's deadline costs one small object in a set instead of its own timer, AbortController
 * and Effect fiber (which together were about a fifth of the kernel's per-turn cost).
 *
 * On the system clock the wake-up stays set when the last turn ends, unref'd: an idle harness
 * keeps no process alive, a turn started before it fires needs no timer of its own (a harness
 * running turn after turn would otherwise set and clear one per turn), and when it fires with no
 * turn past its deadline it simply is not set again. While a turn runs it is ref'd, so a turn
 * waiting on nothing else still reaches its deadline. A virtual clock's wake-up is cancelled as
 * soon as no turn runs (tests see no pending sleep); {@link close} cancels either.
 */
export class TurnDeadlines {
  readonly #clock: Clock;
  readonly #ms: number;
  // Insertion order is deadline order (same length, later starts).
  readonly #armed = new Set<ArmedDeadline>();
  #wake: WakeUp | undefined;

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
  arm(controller: DeadlineController): TurnDeadline {
    const deadline = new ArmedDeadline(this, this.#clock.now() + this.#ms, this.#ms, controller);
    this.#armed.add(deadline);
    this.#schedule();
    if (this.#armed.size === 1) this.#wake?.hold(true);
    return deadline;
  }

  /** Cancels the wake-up (the harness is closing; a turn armed later sets a new one). */
  close(): void {
    this.#wake?.cancel();
    this.#wake = undefined;
  }

  /** Called by a deadline's `disarm`. */
  release(deadline: TurnDeadline): void {
    if (!this.#armed.delete(deadline as ArmedDeadline) || this.#armed.size > 0) return;
    if (this.#clock === systemClock) this.#wake?.hold(false);
    else this.close();
  }

  /** Makes sure a wake-up is set no later than the oldest running turn's deadline. */
  #schedule(): void {
    const first = this.#armed.values().next();
    if (first.done) return;
    const at = first.value.at;
    if (this.#wake && this.#wake.at <= at) return;
    this.#wake?.cancel();
    this.#wake = wakeAt(this.#clock, at, at - this.#clock.now(), () => this.#expire());
  }

  /** Aborts every turn whose deadline has passed, then sets the wake-up for the next one. */
  #expire(): void {
    this.#wake = undefined;
    const now = this.#clock.now();
    for (const armed of this.#armed) {
      if (armed.at > now) break;
      this.#armed.delete(armed);
      armed.fire();
    }
    this.#schedule();
  }
}

class ArmedDeadline implements TurnDeadline {
  readonly #owner: TurnDeadlines;
  readonly #ms: number;
  readonly #controller: DeadlineController;
  /** When it expires, on the harness clock. */
  readonly at: number;
  // Built when the deadline fires (or someone asks): a KernelError per turn would cost its stack.
  #error: KernelError | undefined;
  fired = false;

  constructor(owner: TurnDeadlines, at: number, ms: number, controller: DeadlineController) {
    this.#owner = owner;
    this.at = at;
    this.#ms = ms;
    this.#controller = controller;
  }

  get error(): KernelError {
    this.#error ??= new KernelError('KERNEL_TURN_DEADLINE_EXCEEDED', `The turn did not finish within its deadline of ${this.#ms} ms (turnDeadlineMs); nothing was committed`, {
      details: { turnDeadlineMs: this.#ms },
    });
    return this.#error;
  }

  fire(): void {
    this.fired = true;
    this.#controller.abort(this.error);
  }

  disarm(): void {
    this.#owner.release(this);
  }
}

/** A scheduled wake-up. */
interface WakeUp {
  /** When it is due, on the harness clock. */
  readonly at: number;
  cancel(): void;
  /** Whether it keeps the process alive (system clock only: while turns run). */
  hold(keep: boolean): void;
}

/**
 * Calls `wake` after `ms` on `clock`. The system clock gets a plain timer (no AbortController),
 * ref'd (turns are running when a wake-up is set).
 */
function wakeAt(clock: Clock, at: number, ms: number, wake: () => void): WakeUp {
  if (clock === systemClock) {
    const timer = setTimeout(wake, Math.max(0, ms));
    return {
      at,
      cancel: () => clearTimeout(timer),
      hold: (keep) => {
        if (keep) timer.ref();
        else timer.unref();
      },
    };
  }
  const stop = new AbortController();
  clock.sleep(Math.max(0, ms), stop.signal).then(wake, () => {});
  return { at, cancel: () => stop.abort(CANCELLED), hold: () => {} };
}

// A shared reason: aborting without one would build a DOMException each time.
const CANCELLED = Symbol('turn deadline wake-up cancelled');
