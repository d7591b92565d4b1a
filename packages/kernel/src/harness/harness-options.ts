import type { CloseBackgroundOptions } from '../background/background-tasks.js';
import type { InjectionToken } from 'tsyringe';
import type { ServiceProvider } from '../di/service-providers.js';
import type { DirectorSettings } from '../director/director-loop.js';
import type { KernelError } from '../errors.js';
import type { HookName, PreparedActorPrompt } from '../hooks/hook-types.js';
import type { PluginDefinition } from '../plugin/plugin.js';
import type { ChatModel, ChatUsage, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { SessionEvent, SessionLog } from '../ports/session-log.js';
import type { TreeStore } from '../ports/tree-store.js';
import type { Scenario, TurnInput } from '../turn/turn-input.js';
import type { EditTurnRequest, RemoveTurnsRequest, SelectStepRequest } from '../turn/chat-controls.js';
import type { ContinueTurnRequest } from '../turn/continue-turn.js';
import type { RegenerateTurnRequest } from '../turn/next-step.js';
import type { CommittedTurnRecord } from '../turn/session-history.js';

/**
 * Options of {@link createHarness}. Give exactly one of `model` and `models` (or provide
 * `Tokens.ModelRegistry` in `provide`).
 */
export interface HarnessOptions {
  // biome-ignore lint/suspicious/noExplicitAny: a harness takes plugins of any config type.
  readonly plugins?: readonly PluginDefinition<any>[];
  /** The one model used for every stage. */
  readonly model?: ChatModel;
  /** A registry when stages use different models. */
  readonly models?: ModelRegistry;
  /**
   * Where turns and events are stored. When it is also a `SessionTurnLock` (storage-fs,
   * storage-postgres, `MemorySessionLog`), every turn and chat control runs holding the session's
   * turn lock, so processes sharing the store never answer two turns on the same history.
   */
  readonly sessionLog: SessionLog;
  /** Revisioned file trees (story workspaces); registered under `Tokens.TreeStore` when given. */
  readonly trees?: TreeStore;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Default scenario; a turn's `scenario` overrides it field by field. */
  readonly scenario?: Scenario;
  /** Timeout per hook in ms (defaults: preActor 600 000, actorAssemble 10 000, review 60 000, postReview 300 000). */
  readonly hookTimeouts?: Partial<Record<HookName, number>>;
  /**
   * Longest a turn may take from its start to its commit (ms, default 600 000). When it passes,
   * the turn is aborted (handlers, model calls and waits end) and rejects with
   * `KERNEL_TURN_DEADLINE_EXCEEDED`; nothing is committed. `postReview` is bounded by its hook timeout.
   */
  readonly turnDeadlineMs?: number;
  /** Longest actor reply accepted (characters, default 200 000); more ends the turn with `KERNEL_REPLY_TOO_LARGE`. */
  readonly maxReplyChars?: number;
  /** Warn once when a handler runs longer than this (ms, default 3 000). */
  readonly slowHookWarningMs?: number;
  readonly director?: DirectorSettings;
  /** Generates turn ids when the input has none (default: `crypto.randomUUID`). */
  readonly generateTurnId?: () => string;
  /**
   * Most earlier turns a turn reads from its session (default 1 000): the history handed to
   * plugins stays bounded however long the session grows; the assembler then fits it to the
   * token budget (`scenario.tokenBudget`).
   */
  readonly maxHistoryTurns?: number;
  /**
   * Services the app provides by token, overriding the kernel's and the plugins' defaults (e.g.
   * `Tokens.Fetch`, a plugin's web search provider). Registered in this harness's own container.
   * The kernel resolves its own `Tokens.Clock`, `Tokens.Logger` and `Tokens.ModelRegistry` from it
   * too, so an override there also drives turn deadlines, event times and the actor's model.
   */
  readonly provide?: readonly ServiceProvider[];
}

/** Options of {@link Harness.runTurn}. */
export interface RunTurnOptions {
  /** Cancels the turn: it rejects with the signal's reason; nothing is committed. */
  readonly signal?: AbortSignal;
  /** Receives the actor's reply text as it streams (when the model streams). */
  readonly onReplyDelta?: (text: string) => void;
  /** Receives the actor's reasoning as it streams (reasoning models), e.g. for a collapsed "thinking" view. */
  readonly onReasoningDelta?: (text: string) => void;
  /** Receives each event as a handler queues it (live progress for UIs). */
  readonly onEvent?: (event: { readonly type: string; readonly data: unknown }) => void;
}

/** What `runTurn` resolves with. */
export interface TurnResult {
  readonly turnId: string;
  readonly sessionId: string;
  readonly step: number;
  /** The visible reply (after review). */
  readonly reply: string;
  /** The actor's messages (the seed's `prepared.history`). */
  readonly prepared: PreparedActorPrompt;
  /** Every event appended by this turn, in order. */
  readonly events: readonly SessionEvent[];
  /** Failures of `postReview` handlers (the turn still succeeded). */
  readonly postReviewErrors: readonly KernelError[];
  readonly usage?: ChatUsage;
  /** The actor's reasoning, when the model produced any (kept out of `reply` and the history). */
  readonly reasoning?: string;
}

/** A booted kernel instance. */
export interface Harness {
  /**
   * Runs one turn: director, preActor, actorAssemble, actor, review, commit, postReview.
   * Turns of one session run one at a time, in call order.
   * @throws {KernelError} KERNEL_TURN_INPUT_INVALID, KERNEL_HOOK_FAILED, KERNEL_HOOK_TIMEOUT,
   *   KERNEL_MODEL_FAILED, KERNEL_TURN_DEADLINE_EXCEEDED, KERNEL_REPLY_TOO_LARGE,
   *   KERNEL_HARNESS_CLOSED; or the abort reason when cancelled
   */
  runTurn(input: TurnInput, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * `continue`: asks the actor to extend the last visible reply. Runs as a new step of that turn
   * (one past its highest) whose committed reply is the kept reply with the continuation appended
   * (`onReplyDelta` streams only the continuation). Queued with the session's turns.
   * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, and what `runTurn` throws
   */
  continueTurn(request: ContinueTurnRequest, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * Regenerate (a new swipe): runs the last visible turn again as a new step (one past its
   * highest) with its visible, possibly edited, line. The step is chosen in the session's queue,
   * so two requests sent at once get consecutive steps and neither reply is replaced, and a
   * request queued behind a new turn is refused. Queued with the session's turns.
   * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, and what `runTurn` throws
   */
  regenerateTurn(request: RegenerateTurnRequest, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * Swipe: keeps another committed step of a turn (appends `kernel/step-selected`).
   * @returns the turn as visible afterwards
   * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, KERNEL_STEP_NOT_FOUND
   */
  selectStep(request: SelectStepRequest): Promise<CommittedTurnRecord>;
  /**
   * Edits a committed step's input and/or reply (appends `kernel/turn-edited`; the original stays in the log).
   * @returns the turn as visible afterwards
   * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND, KERNEL_STEP_NOT_FOUND
   */
  editTurn(request: EditTurnRequest): Promise<CommittedTurnRecord>;
  /**
   * Removes a turn and every later turn from the visible history (appends `kernel/turns-removed`).
   * @returns the removed turn ids, in order
   * @throws {KernelError} KERNEL_CHAT_CONTROL_INVALID, KERNEL_TURN_NOT_FOUND
   */
  removeTurns(request: RemoveTurnsRequest): Promise<string[]>;
  /** Resolves a DI token from the root container (services the kernel or plugins exposed). */
  resolve<T>(token: InjectionToken<T>): T;
  /** Background tasks still running. */
  readonly backgroundTasks: number;
  /**
   * Finishes the latest committed turn of a session whose postReview work never completed (the
   * process died after the commit, or `close()` cut it at its deadline), from the committed input
   * and reply in the session log, exactly once. The session's next `runTurn` does this by itself;
   * call it at start-up for every session so nothing waits for the player's next turn.
   * @param sessionId - the session
   * @returns true when a turn was finished now, false when there was nothing to finish
   * @throws {KernelError} KERNEL_HARNESS_CLOSED; storage errors of the session log
   */
  finishCommittedTurn(sessionId: string): Promise<boolean>;
  /**
   * Stops new turns and waits for running ones — a committed turn's postReview work always
   * finishes unless `timeoutMs` is given and reached first (it is then aborted, and finished by
   * the next start) — aborts (default) or drains background tasks, then runs plugins' close
   * callbacks.
   */
  close(options?: CloseBackgroundOptions): Promise<void>;
}
