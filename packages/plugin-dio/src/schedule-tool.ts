import { abortReason } from '@troupe/kernel/util';
import { type DirectorTool, defineDirectorTool } from '@troupe/kernel';
import * as z from 'zod';
import type { DioPluginConfig } from './config.js';
import type { DioClient } from './dio-client.js';
import { DIO_EVENTS, failureData } from './events.js';
import { DioError } from './errors.js';
import { ensureActivePromptLookup } from './active-prompt-handler.js';
import { describeMissingIdentity, turnIdentity } from './turn-identity.js';

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
 * The current reply never waits for the task.
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
        const acceptance = await client.schedule(
          {
            actorTurnRequestId: ctx.turnId,
            userId: identity.userId,
            rpConversationId: identity.rpConversationId,
            targetPromptId: identity.targetPromptId,
            // The player's raw words, never text the control model wrote.
            instruction: ctx.input,
            language: identity.language,
            ...(identity.authorization === undefined ? {} : { userAuthorization: identity.authorization }),
          },
          ctx.signal,
        );
        const ids = {
          requestId: acceptance.requestId,
          dioConversationId: acceptance.dioConversationId,
          taskMessageId: acceptance.taskMessageId,
          rpConversationId: identity.rpConversationId,
          targetPromptId: identity.targetPromptId,
        };
        ctx.events.append(DIO_EVENTS.scheduled, { ...ids, userId: identity.userId, appliesFrom: acceptance.appliesFrom });
        ctx.startBackground('dio-wait', async (task) => {
          try {
            const terminal = await client.waitForTerminal(acceptance.requestId, {
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
        });
        return { ...acceptance, note: 'The requirement was submitted; it applies from a later turn. Do not tell the player it is already in effect.' };
      } catch (error) {
        if (ctx.signal.aborted) throw abortReason(ctx.signal);
        ctx.events.append(DIO_EVENTS.scheduleFailed, failureData(error));
        throw error;
      }
    },
  });
}
