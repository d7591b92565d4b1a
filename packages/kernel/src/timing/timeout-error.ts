/**
 * The error a time limit rejects with: what `onTimeout` returns, or what it throws (a limit's
 * error factory that fails must still settle the call, with its own failure).
 * @param onTimeout - the caller's error factory
 * @returns the error to reject with
 */
export function timeoutError(onTimeout: () => unknown): unknown {
  try {
    return onTimeout();
  } catch (thrown) {
    return thrown;
  }
}
