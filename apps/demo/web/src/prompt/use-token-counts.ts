import { useEffect, useState } from 'react';
import { api } from '../api.js';
import type { MessageTokens, TokenCounts } from '../../../src/wire/prompt.js';

/**
 * Token counts of a session's visible messages, by turn id; fetched again whenever `version`
 * changes (pass the message list: a turn, swipe or edit changes it). Empty while loading or
 * when the session does not exist yet.
 * @param sessionId - the session
 * @param version - anything that changes when the messages do
 * @returns counts by turn id
 */
export function useTokenCounts(sessionId: string, version: unknown): ReadonlyMap<string, MessageTokens> {
  const [counts, setCounts] = useState<ReadonlyMap<string, MessageTokens>>(new Map());
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the refresh trigger
  useEffect(() => {
    let current = true;
    api<TokenCounts>('GET', `/api/sessions/${sessionId}/token-counts`).then(
      (r) => {
        if (current) setCounts(new Map(r.messages.map((m) => [m.turnId, m])));
      },
      () => {
        if (current) setCounts(new Map());
      },
    );
    return () => {
      current = false;
    };
  }, [sessionId, version]);
  return counts;
}
