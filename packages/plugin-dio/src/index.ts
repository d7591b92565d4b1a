// Public API of @troupe/plugin-dio. Explicit named exports only.
export { dioPlugin, DioClientToken, DIO_PLUGIN_NAME } from './dio-plugin.js';
export type { DioPluginOptions } from './dio-plugin.js';
export { DioPluginConfigSchema } from './config.js';
export type { DioPluginConfig, DioPluginConfigInput } from './config.js';
export { DioClient, DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_BUDGET_MS } from './dio-client.js';
export type { ActivePromptQuery, DioAcceptance, DioClientOptions, DioScheduleInput, ForkConversationInput, LookupOptions, WaitOptions } from './dio-client.js';
export { DioError, isTransient } from './errors.js';
export type { DioErrorCode, DioErrorOptions, DioFailureClass } from './errors.js';
export { DIO_EVENTS } from './events.js';
export { SCHEDULE_DIO_TOOL } from './schedule-tool.js';
export { DioSessionRequirements, DioSessionRequirementsToken, requirementsAtBranchPoint } from './session-requirements.js';
export type { DioActor, ForkForBranchInput, ForkOutcome, RevokeRequirementInput } from './session-requirements.js';
export type { FetchLike } from './http-request.js';
export { MAX_RESPONSE_BYTES } from './http-request.js';
export {
  AcceptanceSchema,
  ActivePromptSchema,
  ChangesetSchema,
  ForkResultSchema,
  DIO_ID_PATTERN,
  DioUserIdSchema,
  deriveDioIds,
  MAX_COMPILED_PROMPT_CHARS,
  RevokeResultSchema,
  ScheduleRequestSchema,
  TASK_STATUSES,
  TaskStatusSchema,
} from './wire.js';
export type { ActivePrompt, DioTaskStatus, ForkResult, RevokeResult, ScheduleRequest } from './wire.js';
