/**
 * Helpers that keep the kernel's cancellation rule in one place: when a signal is aborted,
 * everything rejects with the signal's reason — never a fallback, never a degradation.
 */

/**
 * Throws the signal's abort reason if it is aborted.
 * @param signal - the turn's or task's signal
 * @throws the abort reason (an `AbortError` DOMException unless the caller gave another reason)
 */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/**
 * The value to reject with when `signal` is aborted.
 * @param signal - an aborted signal
 * @returns its reason, or a new AbortError when it has none
 */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Races `promise` against `signal`: rejects with the abort reason as soon as the signal aborts,
 * and removes its listener when the promise settles so nothing leaks across turns.
 * @param promise - the work to wait for
 * @param signal - cancels the wait
 * @returns the promise's value
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The work's own later rejection is expected; it must not surface as an unhandled rejection.
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A child controller that aborts when any of `parents` aborts. Call `dispose()` when done so the
 * parents do not keep listeners (and thus the child) alive. This (with {@link followSignals}) is
 * the one way Troupe links signals.
 * @param parents - signals to follow
 * @returns the controller and its disposer
 */
export function linkedController(...parents: AbortSignal[]): { controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  return { controller, dispose: followSignals(controller, parents) };
}

/**
 * Makes an existing `controller` abort, with the same reason, when the first of `parents` does.
 * @param controller - the controller to abort
 * @param parents - signals to follow
 * @returns a function that stops following (removes every listener)
 */
export function followSignals(controller: AbortController, parents: readonly AbortSignal[]): () => void {
  const listeners: Array<[AbortSignal, () => void]> = [];
  const dispose = () => {
    for (const [parent, onAbort] of listeners) parent.removeEventListener('abort', onAbort);
    listeners.length = 0;
  };
  for (const parent of parents) {
    if (parent.aborted) {
      dispose();
      controller.abort(abortReason(parent));
      break;
    }
    const onAbort = () => {
      dispose();
      controller.abort(abortReason(parent));
    };
    parent.addEventListener('abort', onAbort, { once: true });
    listeners.push([parent, onAbort]);
  }
  return dispose;
}

/**
 * True when `error` is the kind of rejection an abort produces.
 * @param error - any thrown value
 */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
