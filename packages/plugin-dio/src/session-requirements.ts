import type { Clock, SessionEvent, SessionLog } from '@troupe/kernel';
import type { InjectionToken } from '@troupe/kernel/di';
import type { DioBackgroundWork, ResumedDioWork } from './background-work.js';
import type { DioClient } from './dio-client.js';
import { DioError } from './errors.js';
import { DIO_EVENTS, failureData } from './events.js';
import type { RevokeResult } from './wire.js';

/** DI token under which the plugin exposes {@link DioSessionRequirements} (apps call it for revoke and branch). */
export const DioSessionRequirementsToken = Symbol.for('@troupe/plugin-dio/DioSessionRequirements') as InjectionToken<DioSessionRequirements>;

/** Who acts, for the calls outside a turn (the app passes what it passes with turns). */
export interface DioActor {
  readonly userId: string;
  /** The player's `Authorization` header, forwarded as is, never recorded. */
  readonly authorization?: string;
}

/** Input of {@link DioSessionRequirements.revoke}. */
export interface RevokeRequirementInput extends DioActor {
  readonly sessionId: string;
  readonly requirementId: string;
  readonly targetPromptId: string;
  /** The RP conversation (default: the session id, as in turns). */
  readonly rpConversationId?: string;
  readonly signal?: AbortSignal;
}

/** Input of {@link DioSessionRequirements.forkForBranch}. */
export interface ForkForBranchInput extends DioActor {
  /** The session branched from (its id is the parent DIO conversation). */
  readonly parentSessionId: string;
  /** The new session, already created by `SessionLog.branch` (its copied events say which requirements the branch point had). */
  readonly sessionId: string;
  readonly signal?: AbortSignal;
}

/** What happened to one target prompt's conversation on a branch. */
export type ForkOutcome =
  | { readonly targetPromptId: string; readonly status: 'forked'; readonly requirements: number; readonly versionId?: string }
  | { readonly targetPromptId: string; readonly status: 'degraded'; readonly reason: 'unsupported' | 'failed'; readonly code: string; readonly message: string };

/**
 * The DIO side of session actions outside a turn, each recorded in the session log so the log
 * tells the session's whole DIO story (and a branch of it knows which requirements it has):
 * - {@link revoke} revokes a lasting requirement at the service and appends `dio/requirement-revoked`;
 * - {@link forkForBranch}, called by the app right after `SessionLog.branch`, forks every DIO
 *   conversation the branch point had into the new session, keeping the requirements scheduled
 *   (or carried over by an earlier fork) up to that point and not revoked since; it appends
 *   `dio/conversation-forked`, or `dio/fork-degraded` when the service cannot fork (no fork
 *   endpoint: 404/405) or fails — the branch itself always stands.
 */
export class DioSessionRequirements {
  readonly #client: DioClient;
  readonly #sessionLog: SessionLog;
  readonly #clock: Clock;
  readonly #work: DioBackgroundWork | undefined;

  /**
   * @param client - the plugin's DIO client
   * @param sessionLog - the harness's session log
   * @param clock - times the events
   * @param work - the plugin's background work (for {@link resume})
   */
  constructor(client: DioClient, sessionLog: SessionLog, clock: Clock, work?: DioBackgroundWork) {
    this.#client = client;
    this.#sessionLog = sessionLog;
    this.#clock = clock;
    this.#work = work;
  }

  /**
   * Resumes the session's DIO background work that a stopped or killed process left unfinished
   * (apps call it for every session at start-up, next to `harness.finishCommittedTurn`; a session's
   * next turn does it anyway): a pending submission is retried for the rest of `scheduleBudgetMs`,
   * an accepted task is polled for the rest of `waitBudgetMs`, each ending in its usual event
   * (`resumed: true`). Exactly once per requirement in this process; only this player's work.
   * @param input - the session and the acting player (whose authorization is forwarded)
   * @returns what was started (tracked by the harness: `close()` drains or aborts it)
   */
  async resume(input: DioActor & { readonly sessionId: string }): Promise<ResumedDioWork[]> {
    return this.#work ? this.#work.resume(input) : [];
  }

  /**
   * Revokes a requirement and records it in the session log (`dio/requirement-revoked`: which
   * requirement, its text and request id when the service says, and the new version).
   * @param input - session, requirement, target prompt and the acting player
   * @returns the service's answer
   * @throws {DioError} what {@link DioClient.revokeRequirement} throws (nothing is recorded then);
   * the signal's reason when cancelled
   */
  async revoke(input: RevokeRequirementInput): Promise<RevokeResult> {
    const rpConversationId = input.rpConversationId ?? input.sessionId;
    const result = await this.#client.revokeRequirement(
      { userId: input.userId, rpConversationId, targetPromptId: input.targetPromptId, ...(input.authorization === undefined ? {} : { userAuthorization: input.authorization }) },
      input.requirementId,
      input.signal ? { signal: input.signal } : {},
    );
    await this.#append(input.sessionId, DIO_EVENTS.requirementRevoked, {
      rpConversationId,
      targetPromptId: input.targetPromptId,
      userId: input.userId,
      requirementId: input.requirementId,
      ...(result.revoked ? { requestId: result.revoked.requestId, text: result.revoked.text } : {}),
      promptChanged: result.promptChanged,
      ...(result.versionId === undefined ? {} : { versionId: result.versionId }),
      ...(result.compiledPromptSha256 === undefined ? {} : { compiledPromptSha256: result.compiledPromptSha256 }),
    });
    return result;
  }

  /**
   * Forks the parent's DIO conversations into a branched session (see the class comment). Never
   * throws for a service failure: each target ends in one recorded event.
   * @param input - parent and new session, and the acting player
   * @returns one outcome per target prompt the branch point had requirements for (none: nothing to fork, nothing recorded)
   * @throws the signal's reason when cancelled; storage errors of the session log
   */
  async forkForBranch(input: ForkForBranchInput): Promise<ForkOutcome[]> {
    const kept = requirementsAtBranchPoint(await this.#sessionLog.read(input.sessionId));
    const outcomes: ForkOutcome[] = [];
    for (const [targetPromptId, keepRequestIds] of kept) {
      const where = { fromRpConversationId: input.parentSessionId, rpConversationId: input.sessionId, targetPromptId, userId: input.userId };
      try {
        const result = await this.#client.forkConversation(
          {
            userId: input.userId,
            targetPromptId,
            fromRpConversationId: input.parentSessionId,
            toRpConversationId: input.sessionId,
            keepRequestIds: [...keepRequestIds],
            ...(input.authorization === undefined ? {} : { userAuthorization: input.authorization }),
          },
          input.signal ? { signal: input.signal } : {},
        );
        await this.#append(input.sessionId, DIO_EVENTS.conversationForked, {
          ...where,
          keptRequestIds: result.requirements.map((requirement) => requirement.requestId),
          requirements: result.requirements.map(({ id, text }) => ({ id, text })),
          ...(result.versionId === undefined ? {} : { versionId: result.versionId }),
          ...(result.compiledPromptSha256 === undefined ? {} : { compiledPromptSha256: result.compiledPromptSha256 }),
        });
        outcomes.push({ targetPromptId, status: 'forked', requirements: result.requirements.length, ...(result.versionId === undefined ? {} : { versionId: result.versionId }) });
      } catch (error) {
        if (input.signal?.aborted) throw input.signal.reason;
        const reason = DioError.isInstance(error) && error.code === 'DIO_UNSUPPORTED' ? 'unsupported' : 'failed';
        const failure = failureData(error);
        await this.#append(input.sessionId, DIO_EVENTS.forkDegraded, { ...where, reason, keepRequestIds: [...keepRequestIds], ...failure });
        outcomes.push({ targetPromptId, status: 'degraded', reason, code: String(failure.code), message: String(failure.message) });
      }
    }
    return outcomes;
  }

  async #append(sessionId: string, type: string, data: Record<string, unknown>): Promise<void> {
    await this.#sessionLog.append(sessionId, [{ turnId: '', step: 0, type, ignorable: true, at: new Date(this.#clock.now()).toISOString(), data }]);
  }
}

/**
 * Replays a session's DIO events: per target prompt, the request ids of the requirements it holds
 * — scheduled in it or carried over by a fork, minus the revoked ones.
 * @param events - the session's events, in order
 * @returns target prompt → request ids, in first-seen order (targets with none left out)
 */
export function requirementsAtBranchPoint(events: readonly SessionEvent[]): Map<string, Set<string>> {
  const held = new Map<string, Set<string>>();
  const of = (target: unknown) => {
    if (typeof target !== 'string') return undefined;
    const set = held.get(target) ?? new Set<string>();
    held.set(target, set);
    return set;
  };
  for (const event of events) {
    const data = (event.data ?? {}) as Record<string, unknown>;
    if (event.type === DIO_EVENTS.scheduled && typeof data.requestId === 'string') of(data.targetPromptId)?.add(data.requestId);
    else if (event.type === DIO_EVENTS.conversationForked && Array.isArray(data.keptRequestIds)) {
      const set = of(data.targetPromptId);
      for (const id of data.keptRequestIds) if (typeof id === 'string') set?.add(id);
    } else if (event.type === DIO_EVENTS.requirementRevoked && typeof data.requestId === 'string') of(data.targetPromptId)?.delete(data.requestId);
  }
  for (const [target, ids] of held) if (ids.size === 0) held.delete(target);
  return held;
}
