import type { SessionEvent } from '@troupe/kernel';
import * as z from 'zod';
import type { DioChangeView, DioLastLookupView, DioTaskView } from '../wire/dio.js';

const Scheduled = z.object({ requestId: z.string() });
const Terminal = z.object({
  requestId: z.string(),
  status: z.enum(['processing', 'succeeded', 'failed', 'timed_out']),
  promptChanged: z.boolean().optional(),
  sourceVersionId: z.string().optional(),
  compiledPromptSha256: z.string().optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
});
const Failure = z.object({ code: z.string().default('DIO_UNEXPECTED'), message: z.string().default('') });

/**
 * The latest DIO task of a session: its `dio/scheduled` (or `dio/schedule-failed`) event and the
 * matching `dio/task-terminal` / `dio/task-degraded`, if the background wait has reported yet.
 * @param events - the session's events
 * @returns the task, or `null` when the player never stated a lasting requirement
 */
export function latestDioTask(events: readonly SessionEvent[]): DioTaskView | null {
  let task: DioTaskView | null = null;
  let pending: { readonly requestId: string; readonly at: string } | undefined;
  for (const event of events) {
    // A submission that was pending keeps the time the requirement was stated.
    const statedAt = (requestId: unknown): string => (pending && pending.requestId === requestId ? pending.at : event.at);
    if (event.type === 'dio/schedule-pending') {
      const data = Scheduled.safeParse(event.data);
      if (data.success) {
        task = { requestId: data.data.requestId, status: 'submitting', scheduledAt: event.at };
        pending = { requestId: data.data.requestId, at: event.at };
      }
    } else if (event.type === 'dio/scheduled') {
      const data = Scheduled.safeParse(event.data);
      if (data.success) task = { requestId: data.data.requestId, status: 'processing', scheduledAt: statedAt(data.data.requestId) };
    } else if (event.type === 'dio/schedule-failed') {
      const data = Failure.safeParse(event.data);
      const requestId = (event.data as { requestId?: unknown } | null)?.requestId;
      task = {
        requestId: typeof requestId === 'string' ? requestId : null,
        status: 'schedule_failed',
        scheduledAt: statedAt(requestId),
        finishedAt: event.at,
        ...(data.success ? { error: data.data } : {}),
      };
    } else if (task?.requestId && task.status !== 'schedule_failed' && (event.type === 'dio/task-terminal' || event.type === 'dio/task-degraded')) {
      task = finish(task, event);
    }
  }
  return task;
}

function finish(task: DioTaskView, event: SessionEvent): DioTaskView {
  const requestId = (event.data as { requestId?: unknown } | null)?.requestId;
  if (requestId !== task.requestId) return task;
  if (event.type === 'dio/task-degraded') {
    const data = Failure.safeParse(event.data);
    return { ...task, status: 'degraded', finishedAt: event.at, ...(data.success ? { error: data.data } : {}) };
  }
  const data = Terminal.safeParse(event.data);
  if (!data.success) return task;
  const { status, promptChanged, sourceVersionId, compiledPromptSha256, errorCode, errorMessage } = data.data;
  return {
    ...task,
    status,
    finishedAt: event.at,
    ...(promptChanged === undefined ? {} : { promptChanged }),
    ...(sourceVersionId === undefined ? {} : { sourceVersionId }),
    ...(compiledPromptSha256 === undefined ? {} : { compiledPromptSha256 }),
    ...(errorCode === undefined ? {} : { error: { code: errorCode, message: errorMessage ?? '' } }),
  };
}

const LOOKUPS: Readonly<Record<string, DioLastLookupView['outcome']>> = {
  'dio/active-prompt-applied': 'applied',
  'dio/active-prompt-none': 'none',
  'dio/active-prompt-skipped': 'skipped',
  'dio/active-prompt-degraded': 'degraded',
  // The lookup applied a prompt, but the actor assembler left it out: it did not fit the context.
  'actor-assembler/dio-dropped': 'dropped',
};

/**
 * What the latest turn's active-prompt lookup did (applied a compiled prompt, found none, …), or
 * `dropped` when the assembler then left the prompt out because it did not fit the context.
 * @param events - the session's events
 * @returns the latest lookup, or `null` before the first turn
 */
export function latestDioLookup(events: readonly SessionEvent[]): DioLastLookupView | null {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    const outcome = event ? LOOKUPS[event.type] : undefined;
    if (event && outcome) return { outcome, turnId: event.turnId, at: event.at, data: event.data };
  }
  return null;
}

const Revoked = z.object({ requirementId: z.string(), text: z.string().optional() });
const Forked = z.object({ fromRpConversationId: z.string(), requirements: z.array(z.unknown()).default([]) });
const ForkDegraded = z.object({ fromRpConversationId: z.string(), reason: z.string(), code: z.string().default('DIO_UNEXPECTED'), message: z.string().default('') });

/**
 * The requirement changes of a session that happened outside turns, oldest first, from its
 * `dio/requirement-revoked`, `dio/conversation-forked` and `dio/fork-degraded` events.
 * @param events - the session's events
 * @returns the changes (empty when there were none)
 */
export function dioChanges(events: readonly SessionEvent[]): DioChangeView[] {
  const changes: DioChangeView[] = [];
  for (const event of events) {
    if (event.type === 'dio/requirement-revoked') {
      const data = Revoked.safeParse(event.data);
      if (data.success) changes.push({ kind: 'revoked', at: event.at, requirementId: data.data.requirementId, ...(data.data.text === undefined ? {} : { text: data.data.text }) });
    } else if (event.type === 'dio/conversation-forked') {
      const data = Forked.safeParse(event.data);
      if (data.success) changes.push({ kind: 'forked', at: event.at, fromSessionId: data.data.fromRpConversationId, requirements: data.data.requirements.length });
    } else if (event.type === 'dio/fork-degraded') {
      const data = ForkDegraded.safeParse(event.data);
      if (data.success) {
        changes.push({ kind: 'fork_degraded', at: event.at, fromSessionId: data.data.fromRpConversationId, reason: data.data.reason, error: { code: data.data.code, message: data.data.message } });
      }
    }
  }
  return changes;
}
