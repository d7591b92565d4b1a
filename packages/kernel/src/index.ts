// Public API of @troupe/kernel: what a plugin or app author needs (lifecycle, plugin contract,
// ports, context keys, errors). Storage-implementer rules live in `@troupe/kernel/storage`, shared
// helpers in `@troupe/kernel/util`, DI primitives in `@troupe/kernel/di`, test kits in
// `/testing` and `/contracts`. Every runtime export here is listed in the README's API table.

// Lifecycle
export { createHarness } from './harness/create-harness.js';
export type { Harness, HarnessOptions, RunTurnOptions, TurnResult } from './harness/harness-options.js';
export type { ActorSampling, Scenario, TurnInput } from './turn/turn-input.js';
export { foldCommittedTurns, TURN_COMMITTED } from './turn/session-history.js';
export type { CommittedStep, CommittedTurnRecord, TurnCommittedData } from './turn/session-history.js';

// Plugin contract
export { definePlugin } from './plugin/plugin.js';
export type { HookRegistrar, PluginDefinition, PluginSetupContext, StandardSchema, StandardSchemaResult } from './plugin/plugin.js';
export { HOOK_NAMES } from './hooks/hook-types.js';
export type {
  CommittedTurn,
  CommittingTurn,
  DuringCommitEntry,
  HookEntry,
  HookName,
  HookOptions,
  MaybePromise,
  PreparedActorPrompt,
  ReplyDraft,
  TurnHooks,
} from './hooks/hook-types.js';
export type { AppendEventOptions, TurnContext, TurnEvents } from './turn/turn-context.js';
export { CHAT_CONTROL_EVENTS } from './turn/chat-control-events.js';
export type { StepSelectedData, TurnEditedData, TurnsRemovedData } from './turn/chat-control-events.js';
export type { EditTurnRequest, RemoveTurnsRequest, SelectStepRequest } from './turn/chat-controls.js';
export type { ContinueTurnRequest } from './turn/continue-turn.js';
export type { RegenerateTurnRequest } from './turn/next-step.js';
export type { BackgroundEvent, BackgroundTaskContext, BackgroundTaskHandle, BackgroundTaskOwner, BackgroundTaskRun, CloseBackgroundOptions } from './background/background-tasks.js';
export { defineDirectorTool } from './director/director-tool.js';
export type { DirectorSettings } from './director/director-loop.js';
export type { DirectorTool, ToolCallOutcome, ToolErrorCode } from './director/director-tool.js';
export { Tokens } from './di/tokens.js';
export type { ServiceProvider, ServiceResolver } from './di/service-providers.js';
export { KERNEL_VERSION } from './version.js';

// Context keys
export { contextKeys, defineContextKey } from './context-keys.js';
export type { ActivatedWorldInfo, ActivatedWorldInfoEntry, ContextKey, StoryDraft, TurnContinuationInfo, WorldInfoPosition } from './context-keys.js';
export { DEFAULT_TOKEN_BUDGET, estimateTokenizer } from './budget/index.js';
export type { TokenBudgetSettings, TurnTokenBudget } from './budget/index.js';

// Ports
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
export type { EventKey, NewSessionEvent, ReadEventsOptions, ReadTypedOptions, SessionEvent, SessionLog, TypedEvents } from './ports/session-log.js';
export type { HeldSessionTurn, LockSessionTurnOptions, SessionTurnLock } from './ports/session-turn-lock.js';
export type { SettleResult, TreeCommit, TreeSettlement, TreeSnapshot, TreeStore } from './ports/tree-store.js';

// Errors
export { defineErrorClass, TroupeError } from './errors/troupe-error.js';
export type { TroupeErrorClass, TroupeErrorOptions } from './errors/troupe-error.js';
export { formatIssues } from './errors/format-issues.js';
export type { FormatIssuesOptions, IssueLike } from './errors/format-issues.js';
export { KernelError } from './errors.js';
export type { KernelErrorCode, KernelErrorOptions } from './errors.js';
export { KernelStorageError, RevisionConflictError } from './ports/storage-errors.js';
export type { StorageErrorCode } from './ports/storage-errors.js';
