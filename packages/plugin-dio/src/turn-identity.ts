import type { TurnContext } from '@troupe/kernel';
import type { DioPluginConfig } from './config.js';

/** Who and what a turn's DIO calls are about. */
export interface DioTurnIdentity {
  readonly userId: string;
  readonly rpConversationId: string;
  readonly targetPromptId: string;
  readonly language: string;
  /** The player's Authorization header; forwarded, never logged or stored. */
  readonly authorization: string | undefined;
}

/** Why a turn has no DIO identity. */
export type MissingIdentity = 'missing-user' | 'missing-target-prompt';

/**
 * Reads the DIO identity of a turn: the user, the RP conversation (`attributes.rpConversationId`,
 * else the session id), the target prompt (`attributes.targetPromptId`, else the config).
 * @param ctx - the turn
 * @param config - the plugin config
 * @returns the identity, or why it is incomplete
 */
export function turnIdentity(ctx: TurnContext, config: DioPluginConfig): DioTurnIdentity | MissingIdentity {
  const attributes = ctx.turnInput.attributes ?? {};
  if (!ctx.userId) return 'missing-user';
  const targetPromptId = attributes.targetPromptId ?? config.targetPromptId;
  if (!targetPromptId) return 'missing-target-prompt';
  return {
    userId: ctx.userId,
    rpConversationId: attributes.rpConversationId ?? ctx.sessionId,
    targetPromptId,
    language: attributes.language ?? config.language,
    authorization: ctx.turnInput.authorization,
  };
}

/**
 * Explains why a turn has no DIO identity and how to give it one (for tool errors and events).
 * @param reason - from {@link turnIdentity}
 * @returns one sentence naming the missing field and both places it can come from
 */
export function describeMissingIdentity(reason: MissingIdentity): string {
  switch (reason) {
    case 'missing-user':
      return 'the turn has no userId: pass `userId` with the turn input';
    case 'missing-target-prompt':
      return 'no target character prompt: set `targetPromptId` in the dioPlugin config, or pass `attributes.targetPromptId` with the turn input';
  }
}
