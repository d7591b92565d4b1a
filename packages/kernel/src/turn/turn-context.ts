import type { BackgroundTaskRun, BackgroundTaskHandle } from '../background/background-tasks.js';
import type { ContextKey } from '../context-keys.js';
import type { ChatMessage, ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { EventKey, SessionEvent } from '../ports/session-log.js';
import type { Scenario, TurnInput } from './turn-input.js';

/** Options for {@link TurnEvents.append}. */
export interface AppendEventOptions {
  /** Whether a consumer rebuilding the conversation may skip it (default true for plugin events). */
  readonly ignorable?: boolean;
  /** Lookup key for `findLatest`. */
  readonly key?: string;
}

/** Session events as a handler sees them during a turn. */
export interface TurnEvents {
  /**
   * Queues an event; the kernel appends queued events at commit (and after `postReview`). The
   * data is recorded as it is when queued (its JSON text may be written before the commit, while
   * the turn waits for a model): do not change it afterwards.
   * @param type - namespaced type, e.g. `dio/scheduled`
   * @param data - JSON-serialisable payload
   */
  append(type: string, data: unknown, options?: AppendEventOptions): void;
  /** Events queued so far in this turn (not yet committed). */
  pending(): readonly { readonly type: string; readonly data: unknown }[];
  /** The session's committed events. */
  read(): Promise<readonly SessionEvent[]>;
  /** The latest committed event with this type and key (e.g. a replayable prepared draft). */
  findLatest(key: EventKey): Promise<SessionEvent | undefined>;
}

/**
 * What every hook handler and director tool receives. One per turn; `logger` is scoped to the
 * plugin whose handler is running.
 */
export interface TurnContext {
  readonly turnId: string;
  readonly sessionId: string;
  readonly step: number;
  /** The player's raw input for this turn. */
  readonly input: string;
  /** The validated turn input (includes `userId`, `authorization`, `attributes`). */
  readonly turnInput: Readonly<TurnInput>;
  readonly userId: string | undefined;
  readonly scenario: Scenario;
  /** Earlier turns of the session as chat messages (player input, visible reply). */
  readonly history: readonly ChatMessage[];
  /** Aborts when the turn is cancelled or this handler times out. Pass it to all I/O. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly events: TurnEvents;
  readonly models: ModelRegistry;
  readonly clock: Clock;
  /**
   * Starts tracked work that may outlive the turn (e.g. polling a task). If the turn is aborted
   * before commit, the task is aborted too; afterwards it runs until done or `harness.close()`.
   */
  startBackground(name: string, run: BackgroundTaskRun): BackgroundTaskHandle;
  /** Reads a context value. */
  get<T>(key: ContextKey<T>): T | undefined;
  /** Reads a context value that must be present. @throws {KernelError} KERNEL_CONTEXT_KEY_MISSING */
  require<T>(key: ContextKey<T>): T;
  /** Writes a context value for later handlers in this turn. */
  set<T>(key: ContextKey<T>, value: T): void;
  has(key: ContextKey<unknown>): boolean;
}
