import type { ChatMessage, ChatUsage } from '../ports/chat-model.js';
import type { SessionEvent } from '../ports/session-log.js';
import type { TurnContext } from '../turn/turn-context.js';

/** Return type of a handler that may be sync or async. */
export type MaybePromise<T> = T | Promise<T>;

/** The actor's messages as assembled so far (the seed's `prepared.history`). */
export interface PreparedActorPrompt {
  readonly history: readonly ChatMessage[];
}

/** The actor's reply as it moves through `review`. */
export interface ReplyDraft {
  readonly text: string;
}

/** A committed turn, as `postReview` handlers see it. */
export interface CommittedTurn {
  readonly turnId: string;
  readonly sessionId: string;
  readonly step: number;
  /** The player's raw input. */
  readonly input: string;
  /** The final visible reply (after review). */
  readonly reply: string;
  readonly prepared: PreparedActorPrompt;
  /** The `kernel/turn-committed` event. */
  readonly commitEvent: SessionEvent;
  readonly usage?: ChatUsage;
  /**
   * Set when the turn is finished later from the session log (the process died after the commit):
   * context values set before the commit are gone and `prepared` is rebuilt from the history.
   */
  readonly resumed?: true;
}

/**
 * The hook points of a turn, in order. Kinds:
 * - `preActor` — series; gathers materials into the context (director tools, DIO prompt, story draft).
 * - `actorAssemble` — series waterfall; each handler may return a new prepared prompt.
 * - `review` — series waterfall over the reply; a handler may return a revised reply.
 * - `postReview` — parallel and isolated, after commit; failures are reported, the turn succeeds.
 */
export interface TurnHooks {
  preActor(input: string, ctx: TurnContext): MaybePromise<void>;
  actorAssemble(prepared: PreparedActorPrompt, ctx: TurnContext): MaybePromise<PreparedActorPrompt | undefined | void>;
  review(reply: ReplyDraft, ctx: TurnContext): MaybePromise<ReplyDraft | undefined | void>;
  postReview(turn: CommittedTurn, ctx: TurnContext): MaybePromise<void>;
}

/** Names of the hook points. */
export type HookName = keyof TurnHooks;

/** The hook names in lifecycle order. */
export const HOOK_NAMES: readonly HookName[] = ['preActor', 'actorAssemble', 'review', 'postReview'];

/** Options for one registered handler. */
export interface HookOptions {
  /** `pre` handlers run before unordered ones, `post` after; registration order within a group. */
  readonly order?: 'pre' | 'post';
  /** When true, a failure becomes a `kernel/hook-degraded` event and the turn goes on. */
  readonly degradable?: boolean;
  /** Per-handler timeout (ms); default from the harness's `hookTimeouts`. */
  readonly timeoutMs?: number;
}

/** A handler, bare or with options. */
export type HookEntry<K extends HookName> = TurnHooks[K] | (HookOptions & { readonly handler: TurnHooks[K] });

/** A handler as the kernel stores it after boot. */
export interface RegisteredHandler<K extends HookName> {
  readonly plugin: string;
  readonly hook: K;
  readonly handler: TurnHooks[K];
  readonly order: 'pre' | 'normal' | 'post';
  readonly degradable: boolean;
  readonly timeoutMs: number | undefined;
}
