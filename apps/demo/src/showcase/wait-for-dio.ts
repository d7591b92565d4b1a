import { type Clock, type SessionEvent, type SessionLog, systemClock } from '@troupe/kernel';
import { pollOnGrid } from '@troupe/kernel/util';

/** Options of {@link waitForDioTask}. */
export interface WaitForDioTaskOptions {
  /** Give up after this long (ms, default 60 000). */
  readonly timeoutMs?: number;
  /** Time between two looks at the log (ms, default 200). */
  readonly intervalMs?: number;
  /** Time source (virtual in tests; default the system clock). */
  readonly clock?: Clock;
  /** Stops waiting: the call rejects with the abort reason. */
  readonly signal?: AbortSignal;
}

/**
 * Waits until the session log records the end of the DIO background wait for `requestId`
 * (`dio/task-terminal` or `dio/task-degraded`). The plugin polls the service every second in the
 * background; this only watches the log, as any UI would, on the kernel's polling grid.
 * @param sessions - the session log
 * @param sessionId - the session
 * @param requestId - the DIO request id (`<turnId>:dio`)
 * @param options - timeout, interval, clock and signal
 * @returns the event, or undefined on timeout
 * @throws the abort reason when `signal` aborts
 */
export async function waitForDioTask(sessions: SessionLog, sessionId: string, requestId: string, options: WaitForDioTaskOptions = {}): Promise<SessionEvent | undefined> {
  let afterId: string | undefined;
  const outcome = await pollOnGrid<SessionEvent>({
    clock: options.clock ?? systemClock,
    intervalMs: options.intervalMs ?? 200,
    budgetMs: options.timeoutMs ?? 60_000,
    ...(options.signal ? { signal: options.signal } : {}),
    poll: async () => {
      // Only the events appended since the last look: the log is append-only.
      const events = await sessions.read(sessionId, afterId === undefined ? {} : { afterId });
      const done = events.find(
        (event) => (event.type === 'dio/task-terminal' || event.type === 'dio/task-degraded') && (event.data as { requestId?: string }).requestId === requestId,
      );
      afterId = events.at(-1)?.id ?? afterId;
      return done ? { done: true, value: done } : { done: false };
    },
  });
  return outcome.done ? outcome.value : undefined;
}
