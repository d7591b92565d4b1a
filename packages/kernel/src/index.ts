// Public API of @troupe/kernel. Explicit named exports only: anything not listed is internal.
export { createHarness } from './harness/create-harness.js';
export type { Harness, HarnessOptions, RunTurnOptions, TurnResult } from './harness/harness-options.js';
export { definePlugin } from './plugin/plugin.js';
export type { HookRegistrar, PluginDefinition, PluginSetupContext, StandardSchema, StandardSchemaResult } from './plugin/plugin.js';
export { HOOK_NAMES } from './hooks/hook-types.js';
export type {
  CommittedTurn,
  HookEntry,
  HookName,
  HookOptions,
  MaybePromise,
  PreparedActorPrompt,
  ReplyDraft,
  TurnHooks,
} from './hooks/hook-types.js';
export type { AppendEventOptions, TurnContext, TurnEvents } from './turn/turn-context.js';
export { MAX_INPUT_LENGTH, ScenarioSchema, TurnInputSchema } from './turn/turn-input.js';
export type { Scenario, TurnInput } from './turn/turn-input.js';
export { foldCommittedTurns, historyFromEvents, messagesFromTurns, TURN_COMMITTED } from './turn/session-history.js';
export type { CommittedStep, CommittedTurnRecord, TurnCommittedData } from './turn/session-history.js';
export { STEP_SELECTED, TURN_EDITED, TURNS_REMOVED } from './turn/chat-control-events.js';
export type { StepSelectedData, TurnEditedData, TurnsRemovedData } from './turn/chat-control-events.js';
export type { EditTurnRequest, RemoveTurnsRequest, SelectStepRequest } from './turn/chat-controls.js';
export type { ContinueTurnRequest } from './turn/continue-turn.js';
export { contextKeys, defineContextKey } from './context-keys.js';
export type { ActivatedWorldInfo, ActivatedWorldInfoEntry, ContextKey, StoryDraft, WorldInfoPosition } from './context-keys.js';
export { DEFAULT_TOKEN_BUDGET, estimateTokenizer } from './budget/index.js';
export type { TokenBudgetSettings, TurnTokenBudget } from './budget/index.js';
export { KernelError, describeError, toError } from './errors.js';
export type { KernelErrorCode, KernelErrorOptions } from './errors.js';
export { abortReason, isAbortError, linkedController, raceAbort, throwIfAborted } from './abort.js';
export { BackgroundTasks } from './background/background-tasks.js';
export type {
  BackgroundEvent,
  BackgroundTaskContext,
  BackgroundTaskHandle,
  BackgroundTaskOwner,
  BackgroundTaskRun,
  CloseBackgroundOptions,
} from './background/background-tasks.js';
export { DEFAULT_DIRECTOR_PROMPT } from './director/director-loop.js';
export type { DirectorSettings } from './director/director-loop.js';
export { defineDirectorTool } from './director/director-tool.js';
export type { DirectorTool, ToolCallOutcome, ToolErrorCode } from './director/director-tool.js';
export type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatRequestMeta,
  ChatResponse,
  ChatRole,
  ChatStreamPart,
  ChatUsage,
  JsonOutputRequest,
  ModelCapabilities,
  ModelRef,
  ModelRegistry,
  Tokenizer,
  ToolCall,
  ToolSpec,
} from './ports/chat-model.js';
export { createModelRegistry } from './ports/model-registry.js';
export { systemClock } from './ports/clock.js';
export type { Clock } from './ports/clock.js';
export { consoleLogger, silentLogger } from './ports/logger.js';
export type { LogFields, Logger } from './ports/logger.js';
export { SESSION_ID_PATTERN, validateEventKey, validateNewEvent, validateNewEvents, validateSessionId } from './ports/session-log.js';
export { parseExport } from './ports/session-export.js';
export type { EventKey, NewSessionEvent, ReadEventsOptions, SessionEvent, SessionLog } from './ports/session-log.js';
export { MANIFEST_PATH, SETTLE_MARKER_PATTERN, TREE_ID_PATTERN } from './ports/tree-store.js';
export type { SettleResult, TreeCommit, TreeSettlement, TreeSnapshot, TreeStore } from './ports/tree-store.js';
export {
  appendSettleBlock,
  settlementDigest,
  sha256Hex,
  stampManifestRevision,
  validateSettleMarker,
  validateTreeCommit,
  validateTreeFiles,
  validateTreeId,
  validateTreePath,
  validateTreeSettlement,
} from './ports/tree-rules.js';
export { KernelStorageError, RevisionConflictError } from './ports/storage-errors.js';
export type { StorageErrorCode } from './ports/storage-errors.js';
export { Tokens } from './di/tokens.js';
export { readCappedText } from './io/read-capped.js';
export { KERNEL_VERSION } from './version.js';
