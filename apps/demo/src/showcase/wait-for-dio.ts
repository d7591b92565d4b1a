import type { SessionEvent, SessionLog } from '@troupe/kernel';

/**
 * Waits until the session log records the end of the DIO background wait for `requestId`
 * (`dio/task-terminal` or `dio/task-degraded`). The plugin polls the service every second in the
 * background; this only watches the log, as any UI would.
 * @param sessions - the session log
 * @param sessionId - the session
 * @param requestId - the DIO request id (`<turnId>:dio`)
 * @param timeoutMs - give up after this long
 * @returns the event, or undefined on timeout
 */
export async function waitForDioTask(sessions: SessionLog, sessionId: string, requestId: string, timeoutMs = 60_000): Promise<SessionEvent | undefined> {
  const deadline = Date.now() + timeoutMs;
  let afterId: string | undefined;
  while (Date.now() < deadline) {
    // Only the events appended since the last look: the log is append-only.
    const events = await sessions.read(sessionId, afterId === undefined ? {} : { afterId });
    const done = events.find(
      (event) => (event.type === 'dio/task-terminal' || event.type === 'dio/task-degraded') && (event.data as { requestId?: string }).requestId === requestId,
    );
    if (done) return done;
    afterId = events.at(-1)?.id ?? afterId;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}
