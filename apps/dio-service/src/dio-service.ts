import { abortReason, sha256Hex } from '@troupe/kernel/util';
import { type ChatModel, type Clock, type Logger, silentLogger, systemClock } from '@troupe/kernel';
import type { ScheduleRequest } from '@troupe/plugin-dio';
import { compilePrompt } from './compiler.js';
import type { DioStore } from './dio-store.js';
import type { ConversationState, Requirement, TaskRecord, Version } from './records.js';
import { ServiceError } from './service-error.js';
import { type TaskOutcome, TaskRunner } from './task-runner.js';

/** Options of {@link DioService}. */
export interface DioServiceOptions {
  readonly store: DioStore;
  /** The compiling model (`@troupe/model-offline` by default in `main.ts`). */
  readonly model: ChatModel;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** A task still compiling after this long becomes `timed_out` (ms, default 120 000; queue time not counted). */
  readonly taskTimeoutMs?: number;
  /** Most compilations at once (default 4); further accepted tasks queue, still `processing`. */
  readonly maxConcurrentCompiles?: number;
  /** How long {@link DioService.close} lets aborted tasks finish before interrupting them (ms, default 5 000). */
  readonly shutdownGraceMs?: number;
}

/** Which conversation and target prompt a query is about. */
export interface ConversationQuery {
  readonly userId: string;
  readonly rpConversationId: string;
  readonly targetPromptId: string;
}

/** The acceptance of `POST /v1/chat`. */
export interface Acceptance {
  readonly ok: true;
  readonly accepted: true;
  readonly conversationId: string;
  readonly targetPromptId: string;
  readonly taskMessageId: string;
  readonly requestId: string;
}

/** A task as `GET /v1/director/tasks/by-request/{id}` shows it. */
export type TaskView = Pick<TaskRecord, 'requestId' | 'status' | 'promptChanged' | 'sourceVersionId' | 'compiledPromptSha256' | 'errorCode' | 'errorMessage'>;

/** The outcome of one requirement change. */
export interface ChangeOutcome {
  readonly promptChanged: boolean;
  readonly version: Version | undefined;
}

/** What `revoke` removed, so the client can record it (text and request id) in its session log. */
export interface RevokeOutcome extends ChangeOutcome {
  readonly revoked: Pick<Requirement, 'id' | 'text' | 'requestId'>;
}

/** Body of `POST /v1/director/conversations/fork`. */
export interface ForkRequest {
  readonly userId: string;
  readonly targetPromptId: string;
  /** The RP conversation forked from (the parent session). */
  readonly fromConversationId: string;
  /** The new RP conversation (the branched session); must not have requirements yet. */
  readonly toConversationId: string;
  /** Keep only the source's requirements submitted with these request ids (default: all active). */
  readonly keepRequestIds?: readonly string[];
}

/** The outcome of a fork: the requirements the new conversation starts with and its version. */
export interface ForkOutcome {
  readonly requirements: readonly Pick<Requirement, 'id' | 'text' | 'requestId'>[];
  readonly version: Version | undefined;
}

/**
 * The reference DIO service's behaviour, independent of HTTP: accept requirements as async tasks
 * (`processing → succeeded | failed | timed_out`), compile complete character prompts, keep
 * versions, and answer a user only about that user's own data.
 */
export class DioService {
  readonly #store: DioStore;
  readonly #model: ChatModel;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #tasks: TaskRunner;

  /** @param options - store, model, logger, clock and task timeout */
  constructor(options: DioServiceOptions) {
    this.#store = options.store;
    this.#model = options.model;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
    this.#tasks = new TaskRunner({
      store: this.#store,
      logger: this.#logger,
      clock: this.#clock,
      taskTimeoutMs: options.taskTimeoutMs ?? 120_000,
      ...(options.maxConcurrentCompiles === undefined ? {} : { maxConcurrent: options.maxConcurrentCompiles }),
      ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
      work: (task, signal) => this.#apply(task, signal),
    });
  }

  /**
   * Registers or replaces a base character prompt (admin). Conversations pick it up at their next compilation.
   * @returns whether the prompt was new
   */
  async registerPrompt(targetPromptId: string, content: string, characterName: string | undefined): Promise<{ created: boolean }> {
    const existing = await this.#store.readPrompt(targetPromptId);
    await this.#store.writePrompt({ targetPromptId, content, ...(characterName ? { characterName } : {}), updatedAt: this.#now() });
    return { created: existing === undefined };
  }

  /**
   * Accepts a requirement as a task (idempotent per request id) and starts it.
   * @param authUser - the user the bearer token belongs to
   * @param request - the validated body
   * @throws {ServiceError} FORBIDDEN (another user's id in the body), INVALID_REQUEST, PROMPT_NOT_FOUND,
   * REQUEST_ID_CONFLICT (the caller reused one of their own request ids with other content)
   */
  async schedule(authUser: string, request: ScheduleRequest): Promise<Acceptance> {
    if (request.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'You may only submit requirements for your own user');
    if (request.conversationId !== `dio_${request.rpConversationId}`) {
      throw new ServiceError(400, 'INVALID_REQUEST', 'conversationId must be "dio_" followed by rpConversationId');
    }
    if (!(await this.#store.readPrompt(request.targetPromptId))) throw new ServiceError(404, 'PROMPT_NOT_FOUND', `No base prompt "${request.targetPromptId}" is registered`);
    const acceptance: Acceptance = {
      ok: true,
      accepted: true,
      conversationId: request.conversationId,
      targetPromptId: request.targetPromptId,
      taskMessageId: request.messageId,
      requestId: request.requestId,
    };
    // Tasks are the caller's own: another user's task with this request id is neither seen nor in the way.
    const existing = await this.#store.readTask(authUser, request.requestId);
    if (existing) {
      const same =
        existing.message === request.message &&
        existing.rpConversationId === request.rpConversationId &&
        existing.targetPromptId === request.targetPromptId &&
        existing.messageId === request.messageId;
      if (!same) throw new ServiceError(409, 'REQUEST_ID_CONFLICT', 'This request id was already used with different content');
      return acceptance;
    }
    const now = this.#now();
    const task = await this.#store.writeTask({
      requestId: request.requestId,
      messageId: request.messageId,
      conversationId: request.conversationId,
      userId: request.userId,
      rpConversationId: request.rpConversationId,
      targetPromptId: request.targetPromptId,
      message: request.message,
      language: request.language,
      status: 'processing',
      promptChanged: false,
      createdAt: now,
      updatedAt: now,
    });
    this.#tasks.start(task);
    return acceptance;
  }

  /**
   * The status of the caller's task with this request id. Another user's task of the same id is
   * answered exactly like no task at all, so nothing about it leaks.
   * @throws {ServiceError} TASK_NOT_FOUND
   */
  async task(authUser: string, requestId: string): Promise<TaskView> {
    const task = await this.#store.readTask(authUser, requestId);
    if (!task) throw new ServiceError(404, 'TASK_NOT_FOUND', `No task for request "${requestId}"`);
    const { status, promptChanged, sourceVersionId, compiledPromptSha256, errorCode, errorMessage } = task;
    return { requestId, status, promptChanged, sourceVersionId, compiledPromptSha256, errorCode, errorMessage };
  }

  /**
   * The latest compiled version, or undefined when there is none.
   * @throws {ServiceError} FORBIDDEN
   */
  async activePrompt(authUser: string, query: ConversationQuery): Promise<Version | undefined> {
    const state = await this.#own(authUser, query);
    return state?.versions.at(-1);
  }

  /**
   * The active requirements.
   * @throws {ServiceError} FORBIDDEN
   */
  async requirements(authUser: string, query: ConversationQuery): Promise<Requirement[]> {
    return (await this.#own(authUser, query))?.requirements ?? [];
  }

  /**
   * Revokes one requirement and recompiles.
   * @throws {ServiceError} FORBIDDEN, REQUIREMENT_NOT_FOUND, PROMPT_NOT_FOUND
   */
  async revoke(authUser: string, query: ConversationQuery, requirementId: string, signal: AbortSignal): Promise<RevokeOutcome> {
    if (query.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'You may only change your own requirements');
    let outcome: RevokeOutcome | undefined;
    await this.#store.updateConversation(query, async (state) => {
      const removed = state?.requirements.find((requirement) => requirement.id === requirementId);
      if (!state || !removed) throw new ServiceError(404, 'REQUIREMENT_NOT_FOUND', `No active requirement "${requirementId}"`);
      const requirements = state.requirements.filter((requirement) => requirement !== removed);
      const next = await this.#recompile(state, requirements, { added: [], removed: [{ id: removed.id, text: removed.text }] }, `revoke-${requirementId}`, signal);
      outcome = { ...next.outcome, revoked: { id: removed.id, text: removed.text, requestId: removed.requestId } };
      return next.state;
    });
    if (!outcome) throw new ServiceError(404, 'REQUIREMENT_NOT_FOUND', `No active requirement "${requirementId}"`);
    return outcome;
  }

  /**
   * Forks a conversation for a branched RP session: the new conversation starts with the source's
   * active requirements (those in `keepRequestIds`, when given: the ones the branch point had) and
   * a compiled version of them. Idempotent: forking again into a conversation that already holds
   * exactly those requirements answers the same; one holding anything else is a conflict.
   * @throws {ServiceError} FORBIDDEN, CONVERSATION_EXISTS (409), PROMPT_NOT_FOUND
   */
  async fork(authUser: string, request: ForkRequest, signal: AbortSignal): Promise<ForkOutcome> {
    if (request.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'You may only fork your own conversations');
    if (request.fromConversationId === request.toConversationId) throw new ServiceError(400, 'INVALID_REQUEST', 'A conversation cannot be forked into itself');
    const source = await this.#store.readConversation(authUser, request.fromConversationId, request.targetPromptId);
    const keep = request.keepRequestIds === undefined ? undefined : new Set(request.keepRequestIds);
    const kept = (source?.requirements ?? []).filter((requirement) => keep === undefined || keep.has(requirement.requestId));
    const key = { userId: authUser, rpConversationId: request.toConversationId, targetPromptId: request.targetPromptId };
    let outcome: ForkOutcome = { requirements: [], version: undefined };
    await this.#store.updateConversation(key, async (current) => {
      // Request ids are derived from turn ids, so two conversations may share one: compare the texts too.
      const signature = (list: readonly Requirement[]) => JSON.stringify(list.map((requirement) => [requirement.requestId, requirement.text]));
      const sameSet = signature(current?.requirements ?? []) === signature(kept);
      if (current && current.requirements.length > 0) {
        if (!sameSet) throw new ServiceError(409, 'CONVERSATION_EXISTS', `Conversation "${request.toConversationId}" already has other requirements; fork into a new one`);
        outcome = { requirements: current.requirements, version: current.versions.at(-1) };
        return current;
      }
      const fresh: ConversationState = { ...key, nextRequirement: source?.nextRequirement ?? 1, nextSource: 1, requirements: [], versions: [] };
      if (kept.length === 0) return current ?? fresh;
      const latest = source?.versions.at(-1);
      if (source && latest && kept.length === source.requirements.length) {
        // Everything carried over: the source's latest compilation is exactly this set.
        const version: Version = { ...latest, versionId: 'v1', sourceVersionId: 's1', changeset: { added: kept.map(({ id, text }) => ({ id, text })), removed: [] }, createdAt: this.#now() };
        outcome = { requirements: kept, version };
        return { ...fresh, requirements: kept, nextSource: 2, versions: [version] };
      }
      const next = await this.#recompile(fresh, kept, { added: kept.map(({ id, text }) => ({ id, text })), removed: [] }, `fork-${request.toConversationId}`, signal);
      outcome = { requirements: kept, version: next.outcome.version };
      return next.state;
    });
    return outcome;
  }

  /**
   * Restarts tasks left `processing` by a previous process, or whose terminal status could not be
   * written (call once at startup).
   * @returns how many tasks were restarted
   */
  async resume(): Promise<number> {
    const tasks = await this.#store.processingTasks();
    for (const task of tasks) this.#tasks.start(task);
    return tasks.length;
  }

  /** How many tasks compile right now and how many wait for a slot. */
  get load(): { readonly compiling: number; readonly queued: number } {
    return { compiling: this.#tasks.compiling, queued: this.#tasks.queued };
  }

  /** Resolves when no task is running (tests and drains). */
  idle(): Promise<void> {
    return this.#tasks.idle();
  }

  /**
   * Stops running tasks; they stay `processing` and resume on the next start. A task storing its
   * version is let finish (up to `shutdownGraceMs`); whatever still runs then is interrupted.
   */
  close(): Promise<void> {
    return this.#tasks.close();
  }

  // A task's work: add the requirement and recompile. Idempotent per request id, so a task re-run
  // after a crash or a failed status write reports the version it produced the first time.
  async #apply(task: TaskRecord, signal: AbortSignal): Promise<TaskOutcome> {
    let outcome: ChangeOutcome = { promptChanged: false, version: undefined };
    const key = { userId: task.userId, rpConversationId: task.rpConversationId, targetPromptId: task.targetPromptId };
    await this.#store.updateConversation(key, async (current) => {
      const state: ConversationState = current ?? { ...key, nextRequirement: 1, nextSource: 1, requirements: [], versions: [] };
      const text = task.message.trim();
      const mine = state.requirements.find((requirement) => requirement.requestId === task.requestId);
      if (mine) {
        const version = state.versions.find((candidate) => candidate.changeset.added.some((added) => added.id === mine.id));
        outcome = { promptChanged: version !== undefined, version };
        return state;
      }
      // The same requirement twice is not a change: the task succeeds with promptChanged false.
      if (state.requirements.some((requirement) => requirement.text === text)) return state;
      const requirement: Requirement = { id: `r${state.nextRequirement}`, text, requestId: task.requestId, createdAt: this.#now() };
      const next = await this.#recompile(
        { ...state, nextRequirement: state.nextRequirement + 1 },
        [...state.requirements, requirement],
        { added: [{ id: requirement.id, text }], removed: [] },
        task.requestId,
        signal,
      );
      outcome = next.outcome;
      return next.state;
    });
    const { version } = outcome;
    return {
      promptChanged: outcome.promptChanged,
      ...(version ? { sourceVersionId: version.sourceVersionId, compiledPromptSha256: version.compiledPromptSha256 } : {}),
    };
  }

  async #recompile(
    state: ConversationState,
    requirements: Requirement[],
    changeset: Version['changeset'],
    turnId: string,
    signal: AbortSignal,
  ): Promise<{ state: ConversationState; outcome: ChangeOutcome }> {
    const base = await this.#store.readPrompt(state.targetPromptId);
    if (!base) throw new ServiceError(404, 'PROMPT_NOT_FOUND', `No base prompt "${state.targetPromptId}" is registered`);
    const compiled = await compilePrompt(
      this.#model,
      { base: base.content, characterName: base.characterName, requirements: requirements.map((requirement) => requirement.text), signal, sessionId: `dio_${state.rpConversationId}`, turnId },
      this.#logger,
    );
    if (signal.aborted) throw abortReason(signal);
    const sha = sha256Hex(compiled.compiledPrompt);
    const previous = state.versions.at(-1);
    const sourceVersionId = `s${state.nextSource}`;
    const promptChanged = previous?.compiledPromptSha256 !== sha;
    const version: Version = {
      versionId: `v${state.versions.length + 1}`,
      sourceVersionId,
      changeset,
      compiledPrompt: compiled.compiledPrompt,
      compiledPromptSha256: sha,
      compiledBy: compiled.compiledBy,
      createdAt: this.#now(),
    };
    const next: ConversationState = { ...state, requirements, nextSource: state.nextSource + 1, versions: promptChanged ? [...state.versions, version] : state.versions };
    return { state: next, outcome: { promptChanged, version: promptChanged ? version : previous } };
  }

  async #own(authUser: string, query: ConversationQuery): Promise<ConversationState | undefined> {
    if (query.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', "You may only read your own prompts");
    return this.#store.readConversation(query.userId, query.rpConversationId, query.targetPromptId);
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }
}
