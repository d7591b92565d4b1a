import { useCallback, useEffect, useState } from 'react';

/** A value a panel loads from the API, the last failure, and how to act on it. */
export interface Loaded<T> {
  /** The latest value loaded (`null` until the first load succeeds; kept when a later load fails). */
  readonly value: T | null;
  /** The message of the last failed load or action (`null` after the next successful load). */
  readonly error: string | null;
  /** Replaces the shown value at once (an optimistic change; the next reload shows what the server kept). */
  show(value: T): void;
  /** Loads again. */
  reload(): Promise<void>;
  /** Runs an action, then loads again; a failure is shown as {@link error} (described by `describeActionError`). */
  act(action: () => Promise<unknown>): Promise<void>;
}

/** When {@link useLoaded} loads again, and how an action's failure reads. */
export interface LoadedOptions {
  /** Any value whose change loads again (e.g. the session's turn count, so a panel follows the chat). */
  readonly reloadKey?: unknown;
  /** Loads again every `pollMs` while mounted (work that finishes in the background). */
  readonly pollMs?: number;
  /** The message shown when an {@link Loaded.act} action fails (default: the error's message). */
  readonly describeActionError?: (error: unknown) => string;
}

const messageOf = (error: unknown): string => (error as Error).message;

/**
 * Loads a panel's data with `fetcher` when mounted, whenever `fetcher` (memoize it with
 * `useCallback`) or `reloadKey` changes, and every `pollMs`; the panels that show a session's
 * side data (DIO, world info) share this one loading and error handling.
 * @param fetcher - reads the value from the API
 * @param options - reload triggers and how action failures read
 * @returns the value, the last error and the actions
 */
export function useLoaded<T>(fetcher: () => Promise<T>, options: LoadedOptions = {}): Loaded<T> {
  const { reloadKey, pollMs, describeActionError = messageOf } = options;
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setValue(await fetcher());
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  }, [fetcher]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey triggers a reload
  useEffect(() => {
    void reload();
    if (pollMs === undefined) return;
    const timer = setInterval(() => void reload(), pollMs);
    return () => clearInterval(timer);
  }, [reload, reloadKey, pollMs]);

  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      await reload();
    } catch (e) {
      setError(describeActionError(e));
    }
  };

  return { value, error, show: setValue, reload, act };
}
