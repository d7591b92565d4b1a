import { useEffect, useState } from 'react';

/**
 * Follows `GET /api/sessions/:id/live`: a counter that goes up whenever the session got events
 * from any server on the database (a turn another server ran), so the chat can re-read its
 * messages. Stays 0 when the server has no live updates (filesystem storage: it answers
 * `unsupported` and the stream is closed, not retried).
 * @param sessionId - the open chat's session
 * @returns the number of announcements since the chat was opened
 */
export function useLiveSessionVersion(sessionId: string): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    setVersion(0);
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`/api/sessions/${encodeURIComponent(sessionId)}/live`);
    const bump = () => setVersion((value) => value + 1);
    source.addEventListener('events', bump);
    // Subscribed (again, after a reconnect): a turn committed before that was not announced.
    source.addEventListener('ready', bump);
    source.addEventListener('unsupported', () => source.close());
    return () => source.close();
  }, [sessionId]);
  return version;
}
