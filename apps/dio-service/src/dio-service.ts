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
   * @throws {ServiceError} FORBIDDEN, INVALID_REQUEST, PROMPT_NOT_FOUND, REQUEST_ID_CONFLICT
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
    const existing = await this.#store.readTask(request.requestId);
    if (existing) {
      if (existing.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'This request id belongs to another user');
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
   * A task's status, for its owner only.
   * @throws {ServiceError} TASK_NOT_FOUND, FORBIDDEN
   */
  async task(authUser: string, requestId: string): Promise<TaskView> {
    const task = await this.#store.readTask(requestId);
    if (!task) throw new ServiceError(404, 'TASK_NOT_FOUND', `No task for request "${requestId}"`);
    if (task.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'This task belongs to another user');
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
  async revoke(authUser: string, query: ConversationQuery, requirementId: string, signal: AbortSignal): Promise<ChangeOutcome> {
    if (query.userId !== authUser) throw new ServiceError(403, 'FORBIDDEN', 'You may only change your own requirements');
    let outcome: ChangeOutcome = { promptChanged: false, version: undefined };
    await this.#store.updateConversation(query, async (state) => {
      const removed = state?.requirements.find((requirement) => requirement.id === requirementId);
      if (!state || !removed) throw new ServiceError(404, 'REQUIREMENT_NOT_FOUND', `No active requirement "${requirementId}"`);
      const requirements = state.requirements.filter((requirement) => requirement !== removed);
      const next = await this.#recompile(state, requirements, { added: [], removed: [{ id: removed.id, text: removed.text }] }, `revoke-${requirementId}`, signal);
      outcome = next.outcome;
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

  /** Stops running tasks; they stay `processing` and resume on the next start. */
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
