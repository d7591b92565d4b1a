import { DIO_ID_PATTERN, DioUserIdSchema } from '@troupe/plugin-dio';
import * as z from 'zod';

const id = z.string().regex(DIO_ID_PATTERN);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A registered base character prompt (`prompt.json` of a prompt tree). */
export const BasePromptSchema = z.object({
  targetPromptId: id,
  content: z.string().min(1),
  characterName: z.string().min(1).optional(),
  updatedAt: z.string(),
});
/** A base character prompt. */
export type BasePrompt = z.infer<typeof BasePromptSchema>;

/** One active lasting requirement. */
export const RequirementSchema = z.object({ id, text: z.string().min(1), requestId: id, createdAt: z.string() });
/** A lasting requirement. */
export type Requirement = z.infer<typeof RequirementSchema>;

/** One compiled version: the complete character prompt for a requirement set. */
export const VersionSchema = z.object({
  versionId: id,
  sourceVersionId: id,
  changeset: z.object({ added: z.array(z.object({ id, text: z.string() })), removed: z.array(z.object({ id, text: z.string() })) }),
  compiledPrompt: z.string().min(1),
  compiledPromptSha256: sha256,
  compiledBy: z.enum(['model', 'merge']),
  createdAt: z.string(),
});
/** A compiled version. */
export type Version = z.infer<typeof VersionSchema>;

/** Everything the service keeps for one (user, RP conversation, target prompt). */
export const ConversationStateSchema = z.object({
  userId: DioUserIdSchema,
  rpConversationId: id,
  targetPromptId: id,
  nextRequirement: z.number().int().positive(),
  nextSource: z.number().int().positive(),
  requirements: z.array(RequirementSchema),
  versions: z.array(VersionSchema),
});
/** Requirements and versions of one conversation and target prompt. */
export type ConversationState = z.infer<typeof ConversationStateSchema>;

/** Task statuses (`processing` is the only non-terminal one). */
export const TaskRecordSchema = z.object({
  requestId: id,
  messageId: id,
  conversationId: id,
  userId: DioUserIdSchema,
  rpConversationId: id,
  targetPromptId: id,
  message: z.string().min(1),
  language: z.string(),
  status: z.enum(['processing', 'succeeded', 'failed', 'timed_out']),
  promptChanged: z.boolean(),
  sourceVersionId: id.optional(),
  compiledPromptSha256: sha256.optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** A scheduled task. */
export type TaskRecord = z.infer<typeof TaskRecordSchema>;
