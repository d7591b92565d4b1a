import { abortReason } from '@troupe/kernel/util';
import { type DirectorTool, defineDirectorTool } from '@troupe/kernel';
import * as z from 'zod';
import type { DioPluginConfig } from './config.js';
import type { DioAcceptance, DioClient, DioScheduleInput } from './dio-client.js';
import type { DioBackgroundWork, TaskIds } from './background-work.js';
import { DIO_EVENTS, failureData } from './events.js';
import { DioError, isTransient } from './errors.js';
import { ensureActivePromptLookup } from './active-prompt-handler.js';
import { describeMissingIdentity, type DioTurnIdentity, turnIdentity } from './turn-identity.js';
import { deriveDioIds } from './wire.js';

/** Name of the director tool. */
export const SCHEDULE_DIO_TOOL = 'schedule_dio';

const DESCRIPTION = [
  "Record the player's latest message as a lasting requirement for the character (for example",
  '"from now on Lia answers in short sentences"). Call it ONLY when the player explicitly asks for a',
  'change that should hold from now on; never for a one-off request or ordinary conversation.',
  "It takes no arguments: the player's own words are submitted as they are. The change applies from",
  'a later turn, not to the current reply.',
].join(' ');

/**
 * Builds the `schedule_dio` director tool: submits the turn's raw player input, queues
 * `dio/scheduled`, and starts the background wait (`dio/task-terminal` or `dio/task-degraded`).
 * The current reply never waits for the task, and waits for the submission itself at most
 * `scheduleTimeoutMs`: a service that is down or slow gets `dio/schedule-pending` with the turn,
 * and the rest of `scheduleBudgetMs` is retried in the background, ending in `dio/scheduled` (then
 * the task's outcome) or `dio/schedule-failed`.
 * @param client - the DIO client
 * @param config - the plugin config
 * @param work - the background side (also resumes it after a restart)
 * @returns the tool
 */
export function scheduleDioTool(client: DioClient, config: DioPluginConfig, work: DioBackgroundWork): DirectorTool<Record<string, never>> {
  return defineDirectorTool({
    name: SCHEDULE_DIO_TOOL,
    description: DESCRIPTION,
    parameters: z.object({}).strict(),
    oncePerTurn: true,
    execute: async (_parameters, ctx) => {
      const identity = turnIdentity(ctx, config);
      // Every event of the requirement names it, a refusal included (the view ties it to its turn).
      let ids: TaskIds | undefined;
      try {
        if (typeof identity === 'string') {
          throw new DioError('DIO_INVALID_REQUEST', `schedule_dio cannot run for this turn (${identity}): ${describeMissingIdentity(identity)}`, {
            operation: 'schedule',
          });
        }
        const derived = deriveDioIds(identity.rpConversationId, ctx.turnId);
        ids = { requestId: derived.requestId, dioConversationId: derived.conversationId, taskMessageId: derived.messageId, ...where(identity) };
        // Read the active prompt before submitting: this turn must not pick up its own requirement.
        await ensureActivePromptLookup(ctx, client, config, work);
        const input: DioScheduleInput = {
          actorTurnRequestId: ctx.turnId,
          userId: identity.userId,
          rpConversationId: identity.rpConversationId,
          targetPromptId: identity.targetPromptId,
          // The player's raw words, never text the control model wrote.
          instruction: ctx.input,
          language: identity.language,
          ...(identity.authorization === undefined ? {} : { userAuthorization: identity.authorization }),
        };
        const started = ctx.clock.now();
        let acceptance: DioAcceptance;
        try {
          acceptance = await client.schedule(input, ctx.signal, { budgetMs: Math.min(config.scheduleTimeoutMs, config.scheduleBudgetMs) });
        } catch (error) {
          if (ctx.signal.aborted || !isTransient(error)) throw error;
          // Down or slow: the turn goes on; submitting continues in the background. The event
          // records what a later process needs to resume it (language, the budget's end): the
          // text itself is the turn's committed input.
          const pendingIds = ids;
          const deadline = started + config.scheduleBudgetMs;
          const lastFailure = failureData(error);
          ctx.events.append(DIO_EVENTS.schedulePending, {
            ...pendingIds,
            userId: identity.userId,
            language: identity.language,
            retryUntil: new Date(deadline).toISOString(),
            ...lastFailure,
          });
          work.claim(ctx.sessionId, pendingIds.requestId);
          ctx.startBackground('dio-schedule', (task) => work.submit(task, input, pendingIds, deadline - task.clock.now(), lastFailure));
          return {
            accepted: false,
            pending: true,
            note: 'The DIO service did not answer in time; the requirement is being submitted in the background and applies from a later turn once accepted. Do not tell the player it is already in effect.',
          };
        }
        const accepted: TaskIds = {
          requestId: acceptance.requestId,
          dioConversationId: acceptance.dioConversationId,
          taskMessageId: acceptance.taskMessageId,
          ...where(identity),
        };
        ctx.events.append(DIO_EVENTS.scheduled, { ...accepted, userId: identity.userId, appliesFrom: acceptance.appliesFrom });
        work.claim(ctx.sessionId, accepted.requestId);
        ctx.startBackground('dio-wait', (task) => work.wait(task, identity, accepted));
        return { ...acceptance, note: 'The requirement was submitted; it applies from a later turn. Do not tell the player it is already in effect.' };
      } catch (error) {
        if (ctx.signal.aborted) throw abortReason(ctx.signal);
        ctx.events.append(DIO_EVENTS.scheduleFailed, { ...ids, ...failureData(error) });
        throw error;
      }
    },
  });
}

function where(identity: DioTurnIdentity): { rpConversationId: string; targetPromptId: string } {
  return { rpConversationId: identity.rpConversationId, targetPromptId: identity.targetPromptId };
}
