import { abortReason } from '@troupe/kernel/util';
import { type BackgroundTaskContext, type DirectorTool, defineDirectorTool } from '@troupe/kernel';
import * as z from 'zod';
import type { DioPluginConfig } from './config.js';
import type { DioAcceptance, DioClient, DioScheduleInput } from './dio-client.js';
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

/** The ids every event of one requirement carries. */
type TaskIds = Record<'requestId' | 'dioConversationId' | 'taskMessageId' | 'rpConversationId' | 'targetPromptId', string>;

/**
 * Builds the `schedule_dio` director tool: submits the turn's raw player input, queues
 * `dio/scheduled`, and starts the background wait (`dio/task-terminal` or `dio/task-degraded`).
 * The current reply never waits for the task, and waits for the submission itself at most
 * `scheduleTimeoutMs`: a service that is down or slow gets `dio/schedule-pending` with the turn,
 * and the rest of `scheduleBudgetMs` is retried in the background, ending in `dio/scheduled` (then
 * the task's outcome) or `dio/schedule-failed`.
 * @param client - the DIO client
 * @param config - the plugin config
 * @returns the tool
 */
export function scheduleDioTool(client: DioClient, config: DioPluginConfig): DirectorTool<Record<string, never>> {
  return defineDirectorTool({
    name: SCHEDULE_DIO_TOOL,
    description: DESCRIPTION,
    parameters: z.object({}).strict(),
    oncePerTurn: true,
    execute: async (_parameters, ctx) => {
      const identity = turnIdentity(ctx, config);
      try {
        if (typeof identity === 'string') {
          throw new DioError('DIO_INVALID_REQUEST', `schedule_dio cannot run for this turn (${identity}): ${describeMissingIdentity(identity)}`, {
            operation: 'schedule',
          });
        }
        // Read the active prompt before submitting: this turn must not pick up its own requirement.
        await ensureActivePromptLookup(ctx, client, config);
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
          // Down or slow: the turn goes on; submitting continues in the background.
          const derived = deriveDioIds(identity.rpConversationId, ctx.turnId);
          const ids: TaskIds = { requestId: derived.requestId, dioConversationId: derived.conversationId, taskMessageId: derived.messageId, ...where(identity) };
          ctx.events.append(DIO_EVENTS.schedulePending, { ...ids, userId: identity.userId, ...failureData(error) });
          const remainingMs = config.scheduleBudgetMs - (ctx.clock.now() - started);
          ctx.startBackground('dio-schedule', async (task) => {
            let accepted: DioAcceptance;
            try {
              if (remainingMs <= 0) throw error;
              accepted = await client.schedule(input, task.signal, { budgetMs: remainingMs });
            } catch (failure) {
              if (task.signal.aborted) throw abortReason(task.signal);
              await task.appendEvents([{ type: DIO_EVENTS.scheduleFailed, data: { ...ids, ...failureData(failure) } }]);
              return;
            }
            await task.appendEvents([{ type: DIO_EVENTS.scheduled, data: { ...ids, userId: identity.userId, appliesFrom: accepted.appliesFrom } }]);
            await waitForTask(client, config, identity, ids, task);
          });
          return {
            accepted: false,
            pending: true,
            note: 'The DIO service did not answer in time; the requirement is being submitted in the background and applies from a later turn once accepted. Do not tell the player it is already in effect.',
          };
        }
        const ids: TaskIds = {
          requestId: acceptance.requestId,
          dioConversationId: acceptance.dioConversationId,
          taskMessageId: acceptance.taskMessageId,
          ...where(identity),
        };
        ctx.events.append(DIO_EVENTS.scheduled, { ...ids, userId: identity.userId, appliesFrom: acceptance.appliesFrom });
        ctx.startBackground('dio-wait', (task) => waitForTask(client, config, identity, ids, task));
        return { ...acceptance, note: 'The requirement was submitted; it applies from a later turn. Do not tell the player it is already in effect.' };
      } catch (error) {
        if (ctx.signal.aborted) throw abortReason(ctx.signal);
        ctx.events.append(DIO_EVENTS.scheduleFailed, failureData(error));
        throw error;
      }
    },
  });
}

function where(identity: DioTurnIdentity): { rpConversationId: string; targetPromptId: string } {
  return { rpConversationId: identity.rpConversationId, targetPromptId: identity.targetPromptId };
}

// The background wait for an accepted task: its terminal status, or why the wait gave up.
async function waitForTask(client: DioClient, config: DioPluginConfig, identity: DioTurnIdentity, ids: TaskIds, task: BackgroundTaskContext): Promise<void> {
  try {
    const terminal = await client.waitForTerminal(ids.requestId, {
      signal: task.signal,
      budgetMs: config.waitBudgetMs,
      intervalMs: config.pollIntervalMs,
      ...(identity.authorization === undefined ? {} : { userAuthorization: identity.authorization }),
    });
    await task.appendEvents([{ type: DIO_EVENTS.taskTerminal, data: { ...ids, ...terminal } }]);
  } catch (error) {
    // A cancelled wait (turn aborted, harness closed) records nothing.
    if (task.signal.aborted) throw abortReason(task.signal);
    await task.appendEvents([{ type: DIO_EVENTS.taskDegraded, data: { ...ids, ...failureData(error) } }]);
  }
}
