import { abortReason } from '@troupe/kernel/util';
import { contextKeys, defineContextKey, type TurnContext } from '@troupe/kernel';
import type { DioPluginConfig } from './config.js';
import type { DioBackgroundWork } from './background-work.js';
import type { DioClient } from './dio-client.js';
import { DIO_EVENTS, failureData } from './events.js';
import { promptBeforeOwnRequirement } from './own-requirement.js';
import type { RecentPrompts } from './recent-prompts.js';
import { turnIdentity } from './turn-identity.js';
import { deriveDioIds } from './wire.js';

/** Why a regeneration's lookup played the prompt from before the turn (the events' `reason`). */
const BEFORE_OWN = 'before-own-requirement';

/** This turn's lookup, so it runs once whether the director's tool or `preActor` asks first. */
const lookupKey = defineContextKey<Promise<void>>('@troupe/plugin-dio/active-prompt-lookup');

/**
 * Builds the `preActor` handler that looks up the active compiled prompt for (user, RP
 * conversation, target prompt) within `lookupTimeoutMs`, verifies it, and puts it in the turn
 * context as `contextKeys.dioCompiledPrompt`. Exactly one event per turn: applied, none, skipped
 * or degraded. Cancellation propagates and writes nothing.
 * @param client - the DIO client
 * @param config - the plugin config
 * @param work - the background side: the session's unfinished work is resumed on its next turn
 * @returns the handler
 */
export function activePromptHandler(client: DioClient, config: DioPluginConfig, work: DioBackgroundWork): (input: string, ctx: TurnContext) => Promise<void> {
  return (_input, ctx) => ensureActivePromptLookup(ctx, client, config, work);
}

/**
 * Runs this turn's active-prompt lookup once. `schedule_dio` calls it before submitting, so the
 * turn that states a requirement reads what the service had *before* it — as in the seed, the new
 * prompt applies from the next turn, never racing into the current reply.
 * @param ctx - the turn context
 * @param client - the DIO client
 * @param config - the plugin config
 * @param work - the background side (see {@link activePromptHandler})
 * @returns settles when the lookup's outcome is in the context and its event is queued
 */
export function ensureActivePromptLookup(ctx: TurnContext, client: DioClient, config: DioPluginConfig, work: DioBackgroundWork): Promise<void> {
  let pending = ctx.get(lookupKey);
  if (!pending) {
    const identity = turnIdentity(ctx, config);
    // Work a dead process left unfinished (the log says so) goes on at the latest with the
    // session's next turn, with this player's authorization; it does not hold the turn.
    if (typeof identity !== 'string') work.resumeOnTurn({ sessionId: ctx.sessionId, userId: identity.userId, authorization: identity.authorization });
    pending = lookupActivePrompt(ctx, client, config, work.prompts);
    ctx.set(lookupKey, pending);
  }
  return pending;
}

async function lookupActivePrompt(ctx: TurnContext, client: DioClient, config: DioPluginConfig, prompts: RecentPrompts): Promise<void> {
  const identity = turnIdentity(ctx, config);
  if (typeof identity === 'string') {
    ctx.events.append(DIO_EVENTS.activePromptSkipped, { reason: identity });
    return;
  }
  const where = { rpConversationId: identity.rpConversationId, targetPromptId: identity.targetPromptId };
  const before = await promptBeforeOwnRequirement(ctx, deriveDioIds(identity.rpConversationId, ctx.turnId).requestId);
  if (before?.kind === 'none') {
    // A regeneration of the turn that stated a requirement: its first step had no compiled prompt.
    ctx.events.append(DIO_EVENTS.activePromptNone, { ...where, reason: BEFORE_OWN });
    return;
  }
  try {
    const prompt = await client.activePrompt(
      {
        userId: identity.userId,
        rpConversationId: identity.rpConversationId,
        targetPromptId: identity.targetPromptId,
        ...(identity.authorization === undefined ? {} : { userAuthorization: identity.authorization }),
      },
      { signal: ctx.signal, timeoutMs: config.lookupTimeoutMs },
    );
    if (before?.kind === 'applied' && prompt?.compiledPromptSha256 !== before.compiledPromptSha256) {
      // The service has compiled this turn's own requirement since: play the version the turn's
      // first step played, if this process still has its text (the log keeps only its hash).
      const text = prompts.find(before.compiledPromptSha256);
      if (text === undefined) {
        ctx.events.append(DIO_EVENTS.activePromptDegraded, {
          ...where,
          code: 'DIO_PREVIOUS_PROMPT_UNAVAILABLE',
          failureClass: 'permanent',
          message: `This turn stated a requirement; its regeneration must play version ${before.versionId}, which the service no longer serves and this process no longer has: the normal character prompt plays`,
        });
        return;
      }
      ctx.set(contextKeys.dioCompiledPrompt, text);
      ctx.events.append(DIO_EVENTS.activePromptApplied, {
        ...where,
        versionId: before.versionId,
        ...(before.sourceVersionId === undefined ? {} : { sourceVersionId: before.sourceVersionId }),
        compiledPromptSha256: before.compiledPromptSha256,
        characters: text.length,
        reason: BEFORE_OWN,
      });
      return;
    }
    if (!prompt) {
      ctx.events.append(DIO_EVENTS.activePromptNone, where);
      return;
    }
    prompts.remember(prompt.compiledPromptSha256, prompt.compiledPrompt);
    ctx.set(contextKeys.dioCompiledPrompt, prompt.compiledPrompt);
    // Version ids and the hash identify the text exactly; the text itself stays out of the log.
    ctx.events.append(DIO_EVENTS.activePromptApplied, {
      ...where,
      versionId: prompt.versionId,
      sourceVersionId: prompt.sourceVersionId,
      compiledPromptSha256: prompt.compiledPromptSha256,
      characters: prompt.compiledPrompt.length,
    });
  } catch (error) {
    if (ctx.signal.aborted) throw abortReason(ctx.signal);
    // The client already wrote this failure's one log line; the event is the record of the turn.
    ctx.events.append(DIO_EVENTS.activePromptDegraded, { ...where, ...failureData(error) });
  }
}
