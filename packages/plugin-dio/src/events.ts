import { describeError } from '@troupe/kernel/util';
import { DioError } from './errors.js';

/** Session event types written by the plugin (all ignorable). */
export const DIO_EVENTS = Object.freeze({
  /** `schedule_dio` was accepted by the service (queued with the turn). */
  scheduled: 'dio/scheduled',
  /** `schedule_dio` failed (on the critical path: the control model got a tool error; or later, in the background). */
  scheduleFailed: 'dio/schedule-failed',
  /** The service did not accept within `scheduleTimeoutMs`; submission goes on in the background (then `dio/scheduled` or `dio/schedule-failed`). */
  schedulePending: 'dio/schedule-pending',
  /** The background wait saw a terminal task status. */
  taskTerminal: 'dio/task-terminal',
  /** The background wait gave up (budget exhausted or a permanent failure). */
  taskDegraded: 'dio/task-degraded',
  /** A verified compiled prompt was put in the turn context. */
  activePromptApplied: 'dio/active-prompt-applied',
  /** The service has no compiled prompt for this user, conversation and target. */
  activePromptNone: 'dio/active-prompt-none',
  /** The lookup was skipped: the turn has no user or no target prompt. */
  activePromptSkipped: 'dio/active-prompt-skipped',
  /** Lookup or hash check failed; the turn used its normal materials. */
  activePromptDegraded: 'dio/active-prompt-degraded',
  /** A lasting requirement was revoked (outside a turn): which one, its text and request id, and the new version. */
  requirementRevoked: 'dio/requirement-revoked',
  /** A branched session's DIO conversation was forked from its parent's, with the requirements the branch point had. */
  conversationForked: 'dio/conversation-forked',
  /** The fork of a branched session's DIO conversation failed (`reason: 'unsupported'` when the service has no fork endpoint); the branch starts without those requirements. */
  forkDegraded: 'dio/fork-degraded',
});

/**
 * A small serialisable description of a failure for session events.
 * @param error - anything thrown
 * @returns code, failure class, HTTP status and message
 */
export function failureData(error: unknown): Record<string, unknown> {
  if (DioError.isInstance(error)) {
    return { code: error.code, failureClass: error.failureClass, ...(error.status === undefined ? {} : { status: error.status }), message: error.message };
  }
  const described = describeError(error);
  return { code: described.code ?? 'DIO_UNEXPECTED', failureClass: 'permanent', message: described.message };
}
