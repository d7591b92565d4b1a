import type { EventKey, SessionEvent, SessionLog } from '@troupe/kernel';
import * as z from 'zod';

/** Event recording which library lorebooks a session (chat) uses; the latest one counts. */
export const LOREBOOKS_ATTACHED_EVENT = 'demo/lorebooks-attached';
const ATTACHED_KEY: EventKey = { type: LOREBOOKS_ATTACHED_EVENT, key: 'lorebooks' };
const AttachedSchema = z.object({ lorebookIds: z.array(z.string()).max(100) });

/**
 * Attaches library lorebooks to a session, replacing the previous list. Kept in the session log
 * (like the story selection), so it follows the chat through export, import and branches.
 * @param log - the session log
 * @param sessionId - the chat / session
 * @param lorebookIds - the books, in scan order
 */
export async function attachLorebooks(log: SessionLog, sessionId: string, lorebookIds: readonly string[]): Promise<void> {
  await log.append(sessionId, [
    { turnId: '', step: 0, type: LOREBOOKS_ATTACHED_EVENT, ignorable: true, at: new Date().toISOString(), key: ATTACHED_KEY.key, data: { lorebookIds: [...new Set(lorebookIds)] } },
  ]);
}

/**
 * The library lorebooks a session uses (none when nothing was attached or the record is malformed).
 * @param findLatest - the log's (or a turn's) `findLatest`
 * @returns book ids
 */
export async function attachedLorebooks(findLatest: (key: EventKey) => Promise<SessionEvent | undefined>): Promise<string[]> {
  const parsed = AttachedSchema.safeParse((await findLatest(ATTACHED_KEY))?.data);
  return parsed.success ? parsed.data.lorebookIds : [];
}
