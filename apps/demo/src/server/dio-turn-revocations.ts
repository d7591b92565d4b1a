import { DIO_EVENTS, DioSessionRequirementsToken, deriveDioIds } from '@troupe/plugin-dio';
import type { Demo } from '../compose.js';
import { DioProxy } from './dio-proxy.js';
import { eventsOfTypes } from './session-reads.js';

/** What revoking the requirements of deleted or rewritten chat lines did (part of the route's answer). */
export interface TurnRevocations {
  /** How many requirements were revoked (each recorded as `dio/requirement-revoked`). */
  readonly revoked: number;
  /** Why the rest could not be (the DIO service down, …): the chat change itself stands. */
  readonly failed?: { readonly code: string; readonly message: string };
}

// Bounded like the DIO view's calls: a delete or an edit must not wait on a slow service for long.
const TIMEOUT_MS = 1_500;

/**
 * Revokes the lasting requirements that the given turns stated, after the player deleted those
 * turns or rewrote a turn's line: the chat is what is shown, so a requirement whose line is gone
 * no longer holds (a branch leaves out later turns' requirements the same way). Only turns the
 * session log shows scheduling a requirement cost a call to the service.
 * @param demo - the composed demo
 * @param sessionId - the session
 * @param turnIds - the deleted turns, or the one whose line changed
 * @returns what was revoked, or undefined when none of the turns stated a requirement
 */
export async function revokeRequirementsOf(demo: Demo, sessionId: string, turnIds: readonly string[]): Promise<TurnRevocations | undefined> {
  const requestIds = new Set(turnIds.map((turnId) => deriveDioIds(sessionId, turnId).requestId));
  const stated = (await eventsOfTypes(demo.storage.sessions, sessionId, [DIO_EVENTS.scheduled, DIO_EVENTS.schedulePending])).filter((event) => {
    const requestId = (event.data as { requestId?: unknown } | undefined)?.requestId;
    return typeof requestId === 'string' && requestIds.has(requestId);
  });
  if (stated.length === 0) return undefined;
  let revoked = 0;
  try {
    const targetPromptId = await demo.dioTargetFor(sessionId);
    const requirements = await new DioProxy(demo.dio, { timeoutMs: TIMEOUT_MS }).requirements(sessionId, undefined, targetPromptId);
    const plugin = demo.harness.resolve(DioSessionRequirementsToken);
    for (const requirement of requirements) {
      if (!requestIds.has(requirement.requestId)) continue;
      await plugin.revoke({ sessionId, requirementId: requirement.id, targetPromptId, userId: demo.dio.userId, authorization: demo.dio.authorization });
      revoked += 1;
    }
    return { revoked };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { revoked, failed: { code: typeof code === 'string' ? code : 'DIO_UNAVAILABLE', message: typeof message === 'string' ? message : String(error) } };
  }
}
