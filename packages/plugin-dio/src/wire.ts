import * as z from 'zod';

/** Ids as they travel on the wire: 1–200 printable ASCII characters without spaces or `/?#%`. */
export const DIO_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$/;

/**
 * User ids: whatever the kernel accepts as a turn's `userId` (1–256 characters, e.g. "Ada Lovelace"),
 * so every player the kernel runs can use DIO. They travel in JSON bodies and encoded query strings only.
 */
export const DioUserIdSchema = z.string().min(1).max(256);

const id = z.string().regex(DIO_ID_PATTERN);
// Hex is case-insensitive: a correct hash in upper case is the same hash. Lower-cased here, at the
// trust boundary, so every comparison after it is exact.
const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .transform((hex) => hex.toLowerCase());

/** Body of `POST /v1/chat`. */
export const ScheduleRequestSchema = z
  .object({
    conversationId: id,
    requestId: id,
    messageId: id,
    userId: DioUserIdSchema,
    rpConversationId: id,
    targetPromptId: id,
    message: z.string().min(1).max(20_000),
    language: z.string().regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/),
  })
  .strict();

/** A request body of `POST /v1/chat`. */
export type ScheduleRequest = z.infer<typeof ScheduleRequestSchema>;

/** `202` answer of `POST /v1/chat`. Extra fields are tolerated; the echoed ids are checked. */
export const AcceptanceSchema = z.object({
  ok: z.literal(true),
  accepted: z.literal(true),
  conversationId: id,
  targetPromptId: id,
  taskMessageId: id,
  requestId: id,
});

/** Task statuses; every one but `processing` is terminal. */
export const TASK_STATUSES = ['processing', 'succeeded', 'failed', 'timed_out'] as const;

/** Answer of `GET /v1/director/tasks/by-request/{requestId}`. */
export const TaskStatusSchema = z.object({
  requestId: id,
  status: z.enum(TASK_STATUSES),
  promptChanged: z.boolean(),
  sourceVersionId: id.optional(),
  compiledPromptSha256: sha256.optional(),
  errorCode: z.string().max(200).optional(),
  errorMessage: z.string().max(4000).optional(),
});

/** A task as the service reports it. */
export type DioTaskStatus = z.infer<typeof TaskStatusSchema>;

/** What changed between a version's source and the previous one. */
export const ChangesetSchema = z.object({
  added: z.array(z.object({ id, text: z.string() })).default([]),
  removed: z.array(z.object({ id, text: z.string() })).default([]),
});

/**
 * The longest compiled prompt the client accepts (characters): what the reference service
 * (`apps/dio-service`) produces at most. A longer one cannot be a character prompt the actor's
 * context holds; the lookup refuses it (`DIO_INVALID_RESPONSE`) and the turn plays its normal one.
 */
export const MAX_COMPILED_PROMPT_CHARS = 100_000;

/** `200` answer of `GET /v1/director/active-prompt`. */
export const ActivePromptSchema = z.object({
  versionId: id,
  sourceVersionId: id,
  changeset: ChangesetSchema,
  compiledPrompt: z.string().min(1),
  compiledPromptSha256: sha256,
});

/** A verified active prompt. */
export type ActivePrompt = z.infer<typeof ActivePromptSchema>;

/**
 * The ids the client derives from a turn (the seed's rule).
 * @param rpConversationId - the roleplay conversation
 * @param turnRequestId - the RP turn's request id
 * @returns `dio_<rpConversationId>`, `<turnRequestId>:dio`, `<turnRequestId>:dio:assistant`
 */
export function deriveDioIds(rpConversationId: string, turnRequestId: string): { conversationId: string; requestId: string; messageId: string } {
  return {
    conversationId: `dio_${rpConversationId}`,
    requestId: `${turnRequestId}:dio`,
    messageId: `${turnRequestId}:dio:assistant`,
  };
}

/** `200` answer of `DELETE /v1/director/requirements/{requirementId}`. */
export const RevokeResultSchema = z.object({
  ok: z.literal(true),
  promptChanged: z.boolean(),
  /** What was revoked (absent from services that do not say). */
  revoked: z.object({ id, text: z.string(), requestId: id }).optional(),
  versionId: id.optional(),
  sourceVersionId: id.optional(),
  compiledPromptSha256: sha256.optional(),
});

/** The outcome of a revocation. */
export type RevokeResult = z.infer<typeof RevokeResultSchema>;

/** `200` answer of `POST /v1/director/conversations/fork`. */
export const ForkResultSchema = z.object({
  ok: z.literal(true),
  requirements: z.array(z.object({ id, text: z.string(), requestId: id })),
  versionId: id.optional(),
  sourceVersionId: id.optional(),
  compiledPromptSha256: sha256.optional(),
});

/** The outcome of a fork. */
export type ForkResult = z.infer<typeof ForkResultSchema>;
