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
