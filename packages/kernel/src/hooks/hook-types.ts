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
 * A turn whose reply is final while its commit is still being stored, as a postReview handler
 * registered with `duringCommit: true` sees it: {@link CommittedTurn} without the commit event,
 * which `stored` brings once the commit is in the session log.
 */
export interface CommittingTurn extends Omit<CommittedTurn, 'commitEvent'> {
  /**
   * Resolves with the `kernel/turn-committed` event once it is stored (at once for a turn finished
   * later from the log). Rejects with the storage failure when storing it fails; the handler's
   * signal is aborted with that failure at the same moment, and the turn rejects with it.
   */
  readonly stored: Promise<SessionEvent>;
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

/**
 * A postReview handler that starts as soon as the reply is final, while the commit is still being
 * stored, instead of after (a durable store waits for a sync there; a handler whose first step is a
 * model call, like the story's continuity, spends that wait usefully). Until `turn.stored`
 * resolves it must make nothing lasting — no store write, no call with an effect outside the
 * process — because the commit may still fail, and a crash in that window leaves no trace of the
 * turn. What it appends to `ctx.events` is written after the commit in any case (with
 * `kernel/post-review-done`); a commit that fails drops it.
 */
export interface DuringCommitEntry extends HookOptions {
  readonly duringCommit: true;
  readonly handler: (turn: CommittingTurn, ctx: TurnContext) => MaybePromise<void>;
}

/** A handler, bare or with options (`duringCommit` for postReview only). */
export type HookEntry<K extends HookName> =
  | TurnHooks[K]
  | (HookOptions & { readonly handler: TurnHooks[K]; readonly duringCommit?: false })
  | (K extends 'postReview' ? DuringCommitEntry : never);

/** A handler as the kernel stores it after boot. */
export interface RegisteredHandler<K extends HookName> {
  readonly plugin: string;
  readonly hook: K;
  readonly handler: TurnHooks[K];
  readonly order: 'pre' | 'normal' | 'post';
  readonly degradable: boolean;
  readonly timeoutMs: number | undefined;
  /** postReview only: the handler starts while the commit is being stored ({@link DuringCommitEntry}). */
  readonly duringCommit: boolean;
}
