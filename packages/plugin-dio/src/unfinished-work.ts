import type { SessionEvent } from '@troupe/kernel';
import { DIO_EVENTS } from './events.js';

/** The kernel's commit event (read for the raw input a pending submission has to send again). */
const TURN_COMMITTED = 'kernel/turn-committed';

/** The event types {@link unfinishedDioWork} reads (for `SessionLog.readTyped`). */
export const UNFINISHED_WORK_EVENT_TYPES: readonly string[] = [
  DIO_EVENTS.schedulePending,
  DIO_EVENTS.scheduled,
  DIO_EVENTS.scheduleFailed,
  DIO_EVENTS.taskTerminal,
  DIO_EVENTS.taskDegraded,
  TURN_COMMITTED,
];

/**
 * A requirement whose background work the session log shows unfinished: still being submitted
 * (`dio/schedule-pending` without `dio/scheduled` or `dio/schedule-failed`) or accepted and not yet
 * terminal (`dio/scheduled` without `dio/task-terminal` or `dio/task-degraded`).
 */
export interface UnfinishedDioWork {
  readonly kind: 'submit' | 'wait';
  /** The turn and step that stated the requirement (the events of the resumed work belong to it). */
  readonly turnId: string;
  readonly step: number;
  readonly requestId: string;
  readonly dioConversationId: string;
  readonly taskMessageId: string;
  readonly rpConversationId: string;
  readonly targetPromptId: string;
  readonly userId: string;
  /** The language sent with the submission (absent in logs written before it was recorded). */
  readonly language: string | undefined;
  /** For `submit`: the raw player input the turn committed (the text to submit again, byte for byte). */
  readonly instruction: string | undefined;
  /** For `submit`: the failure that made the submission pending (the last one known). */
  readonly failure: Readonly<Record<string, unknown>>;
  /** When the work's budget ends (ms since the epoch): `retryUntil`, else the event's time plus the budget. */
  readonly deadline: number;
}

/** The budgets a deadline is derived from when an event does not carry its own. */
export interface WorkBudgets {
  readonly scheduleBudgetMs: number;
  readonly waitBudgetMs: number;
}

type Data = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Replays a session's DIO events: the requirements whose background work never ended, because the
 * process died or was stopped while it ran (background work is not in the log until it ends).
 * @param events - the session's events in order (at least {@link UNFINISHED_WORK_EVENT_TYPES})
 * @param budgets - the plugin's submission and wait budgets
 * @returns the unfinished work, in the order it was stated
 */
export function unfinishedDioWork(events: readonly SessionEvent[], budgets: WorkBudgets): UnfinishedDioWork[] {
  const open = new Map<string, UnfinishedDioWork>();
  const inputs = new Map<string, string>();
  for (const event of events) {
    const data = (event.data ?? {}) as Data;
    if (event.type === TURN_COMMITTED) {
      const input = text(data.input);
      if (input !== undefined) inputs.set(`${event.turnId}:${event.step}`, input);
      continue;
    }
    const requestId = text(data.requestId);
    if (requestId === undefined) continue;
    if (event.type === DIO_EVENTS.schedulePending || event.type === DIO_EVENTS.scheduled) {
      const ids = {
        dioConversationId: text(data.dioConversationId),
        taskMessageId: text(data.taskMessageId),
        rpConversationId: text(data.rpConversationId),
        targetPromptId: text(data.targetPromptId),
        userId: text(data.userId),
      };
      if (Object.values(ids).some((value) => value === undefined)) continue; // not ours to resume
      const at = Date.parse(event.at);
      const pending = event.type === DIO_EVENTS.schedulePending;
      const retryUntil = Date.parse(text(data.retryUntil) ?? '');
      const { code, failureClass, status, message } = data;
      open.set(requestId, {
        kind: pending ? 'submit' : 'wait',
        turnId: event.turnId,
        step: event.step,
        requestId,
        ...(ids as Record<keyof typeof ids, string>),
        language: text(data.language) ?? open.get(requestId)?.language,
        instruction: undefined,
        failure: pending ? { code, failureClass, ...(status === undefined ? {} : { status }), message } : {},
        deadline: pending ? (Number.isFinite(retryUntil) ? retryUntil : at + budgets.scheduleBudgetMs) : at + budgets.waitBudgetMs,
      });
    } else if (event.type === DIO_EVENTS.scheduleFailed || event.type === DIO_EVENTS.taskTerminal || event.type === DIO_EVENTS.taskDegraded) {
      open.delete(requestId);
    }
  }
  return [...open.values()].map((work) => (work.kind === 'submit' ? { ...work, instruction: inputs.get(`${work.turnId}:${work.step}`) } : work));
}
