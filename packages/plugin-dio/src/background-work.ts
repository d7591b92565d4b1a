import { abortReason, describeError } from '@troupe/kernel/util';
import type { BackgroundTaskContext, BackgroundTaskHandle, BackgroundTaskOwner, BackgroundTaskRun, Clock, Logger, SessionEvent, SessionLog } from '@troupe/kernel';
import type { DioPluginConfig } from './config.js';
import type { DioAcceptance, DioClient, DioScheduleInput } from './dio-client.js';
import { DIO_EVENTS, failureData } from './events.js';
import { RecentPrompts } from './recent-prompts.js';
import { UNFINISHED_WORK_EVENT_TYPES, type UnfinishedDioWork, unfinishedDioWork } from './unfinished-work.js';

/** The ids every event of one requirement carries. */
export type TaskIds = Record<'requestId' | 'dioConversationId' | 'taskMessageId' | 'rpConversationId' | 'targetPromptId', string>;

/** Who the background calls are made for: the player's authorization is forwarded, never recorded. */
export interface DioWorkActor {
  readonly userId: string;
  readonly authorization?: string | undefined;
}

/** Input of {@link DioBackgroundWork.resume}. */
export interface ResumeDioWorkInput extends DioWorkActor {
  readonly sessionId: string;
}

/** What {@link DioBackgroundWork.resume} started for a session. */
export interface ResumedDioWork {
  readonly requestId: string;
  readonly kind: 'submit' | 'wait';
}

/** What this needs of the harness's background tasks (`Tokens.BackgroundTasks`). */
export interface BackgroundTaskStarter {
  start(name: string, owner: BackgroundTaskOwner, run: BackgroundTaskRun): BackgroundTaskHandle;
}

/** The plugin's name, as the owner of resumed tasks. */
const OWNER = '@troupe/plugin-dio';

/**
 * The background side of DIO: the submission retried after `dio/schedule-pending` and the wait
 * for a task's terminal status — started by `schedule_dio` during a turn, or **resumed from the
 * session log** when a process died or stopped while they ran (the log then has the requirement's
 * `dio/schedule-pending` or `dio/scheduled` and nothing after it). Each requirement's work runs at
 * most once per process: a request id handled here is never started again, so the resume on a
 * session's next turn and the one an app runs at start-up cannot both run it.
 */
export class DioBackgroundWork {
  readonly #client: DioClient;
  readonly #config: DioPluginConfig;
  readonly #sessionLog: SessionLog;
  readonly #background: BackgroundTaskStarter;
  readonly #clock: Clock;
  readonly #logger: Logger;
  // `<sessionId> <requestId>` of every requirement whose work this process started; never removed,
  // so a log read before a task's end event was written cannot start the task again.
  readonly #handled = new Set<string>();
  // `<sessionId> <userId>` whose log the turn path has checked already (once per process is enough:
  // everything started later is in `#handled`).
  readonly #checked = new Set<string>();
  /** The prompts this process's lookups applied lately (a regeneration of a stating turn replays one). */
  readonly prompts = new RecentPrompts();

  /**
   * @param client - the plugin's DIO client
   * @param config - the plugin config (budgets, polling)
   * @param sessionLog - where the work's events are read from
   * @param background - the harness's background tasks (resumed work is tracked and closed with it)
   * @param clock - the harness clock (remaining budgets)
   * @param logger - the plugin's logger
   */
  constructor(client: DioClient, config: DioPluginConfig, sessionLog: SessionLog, background: BackgroundTaskStarter, clock: Clock, logger: Logger) {
    this.#client = client;
    this.#config = config;
    this.#sessionLog = sessionLog;
    this.#background = background;
    this.#clock = clock;
    this.#logger = logger;
  }

  /**
   * Marks a requirement's background work as started in this process (by `schedule_dio`).
   * @param sessionId - the session
   * @param requestId - the requirement's DIO request id
   */
  claim(sessionId: string, requestId: string): void {
    this.#handled.add(`${sessionId} ${requestId}`);
  }

  /**
   * Waits for an accepted task in the background (`dio/task-terminal` or `dio/task-degraded`).
   * @param task - the background task
   * @param actor - the player whose authorization is forwarded
   * @param ids - the requirement's ids
   * @param budgetMs - the wait budget (the rest of it when resumed)
   * @param extra - added to the outcome event (e.g. `resumed: true`)
   */
  async wait(task: BackgroundTaskContext, actor: DioWorkActor, ids: TaskIds, budgetMs = this.#config.waitBudgetMs, extra: Record<string, unknown> = {}): Promise<void> {
    try {
      const terminal = await this.#client.waitForTerminal(ids.requestId, {
        signal: task.signal,
        budgetMs,
        intervalMs: this.#config.pollIntervalMs,
        ...(actor.authorization === undefined ? {} : { userAuthorization: actor.authorization }),
      });
      await task.appendEvents([{ type: DIO_EVENTS.taskTerminal, data: { ...ids, ...terminal, ...extra } }]);
    } catch (error) {
      // A cancelled wait (turn aborted, harness closed) records nothing: the next process resumes it.
      if (task.signal.aborted) throw abortReason(task.signal);
      await task.appendEvents([{ type: DIO_EVENTS.taskDegraded, data: { ...ids, ...failureData(error), ...extra } }]);
    }
  }

  /**
   * Retries a pending submission in the background (same request id: the service deduplicates, so
   * a resubmission never schedules twice), then waits for the task.
   * @param task - the background task
   * @param input - exactly what the turn submitted
   * @param ids - the requirement's ids
   * @param remainingMs - what is left of `scheduleBudgetMs`
   * @param lastFailure - reported when no budget is left
   * @param extra - added to every event (e.g. `resumed: true`)
   */
  async submit(task: BackgroundTaskContext, input: DioScheduleInput, ids: TaskIds, remainingMs: number, lastFailure: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
    let accepted: DioAcceptance;
    try {
      if (remainingMs <= 0) {
        await task.appendEvents([{ type: DIO_EVENTS.scheduleFailed, data: { ...ids, ...lastFailure, ...extra } }]);
        return;
      }
      accepted = await this.#client.schedule(input, task.signal, { budgetMs: remainingMs });
    } catch (failure) {
      if (task.signal.aborted) throw abortReason(task.signal);
      await task.appendEvents([{ type: DIO_EVENTS.scheduleFailed, data: { ...ids, ...failureData(failure), ...extra } }]);
      return;
    }
    await task.appendEvents([{ type: DIO_EVENTS.scheduled, data: { ...ids, userId: input.userId, appliesFrom: accepted.appliesFrom, ...extra } }]);
    await this.wait(task, { userId: input.userId, authorization: input.userAuthorization }, ids, this.#config.waitBudgetMs, extra);
  }

  /**
   * Resumes the session's unfinished DIO work of this player on the session's turn (once per
   * session and player per process; cheap after that). Never throws: a failure is logged.
   * @param input - session and the turn's player
   */
  resumeOnTurn(input: ResumeDioWorkInput): void {
    const key = `${input.sessionId} ${input.userId}`;
    if (this.#checked.has(key)) return;
    this.#checked.add(key);
    this.resume(input).catch((error: unknown) => this.#logger.warn('could not resume unfinished DIO work', { sessionId: input.sessionId, error: describeError(error) }));
  }

  /**
   * Resumes the session's unfinished DIO work of this player from the session log: each pending
   * submission is retried for what is left of `scheduleBudgetMs` (none left: `dio/schedule-failed`
   * with the last failure), each accepted task is polled for what is left of `waitBudgetMs` (none
   * left: one last poll). The events go to the turn that stated the requirement and carry
   * `resumed: true`. Work already started in this process, or another player's, is left alone.
   * @param input - the session and the player whose authorization the calls forward
   * @returns what was started
   */
  async resume(input: ResumeDioWorkInput): Promise<ResumedDioWork[]> {
    const events = await this.#readEvents(input.sessionId);
    const started: ResumedDioWork[] = [];
    for (const work of unfinishedDioWork(events, this.#config)) {
      const key = `${input.sessionId} ${work.requestId}`;
      if (work.userId !== input.userId || this.#handled.has(key)) continue;
      this.#handled.add(key);
      try {
        this.#background.start(work.kind === 'submit' ? 'dio-schedule' : 'dio-wait', { sessionId: input.sessionId, turnId: work.turnId, step: work.step, plugin: OWNER }, (task) =>
          this.#resumeOne(task, work, input),
        );
      } catch {
        return started; // the harness is closing: the next process resumes it
      }
      started.push({ requestId: work.requestId, kind: work.kind });
    }
    if (started.length > 0) this.#logger.info('resumed unfinished DIO work', { sessionId: input.sessionId, work: started.length });
    return started;
  }

  #resumeOne(task: BackgroundTaskContext, work: UnfinishedDioWork, actor: DioWorkActor): Promise<void> {
    const ids: TaskIds = {
      requestId: work.requestId,
      dioConversationId: work.dioConversationId,
      taskMessageId: work.taskMessageId,
      rpConversationId: work.rpConversationId,
      targetPromptId: work.targetPromptId,
    };
    const remainingMs = work.deadline - this.#clock.now();
    const extra = { resumed: true };
    if (work.kind === 'wait') {
      // Past the budget, one last poll (one request's time): the service may have finished meanwhile.
      return this.wait(task, actor, ids, remainingMs > 0 ? remainingMs : this.#config.requestTimeoutMs, extra);
    }
    if (work.instruction === undefined) {
      // The committed input is gone (a hand-edited log): nothing to submit byte for byte.
      return task.appendEvents([{ type: DIO_EVENTS.scheduleFailed, data: { ...ids, ...work.failure, ...extra } }]);
    }
    const input: DioScheduleInput = {
      actorTurnRequestId: work.turnId,
      userId: work.userId,
      rpConversationId: work.rpConversationId,
      targetPromptId: work.targetPromptId,
      instruction: work.instruction,
      language: work.language ?? this.#config.language,
      ...(actor.authorization === undefined ? {} : { userAuthorization: actor.authorization }),
    };
    return this.submit(task, input, ids, remainingMs, work.failure, extra);
  }

  async #readEvents(sessionId: string): Promise<readonly SessionEvent[]> {
    // Only the few event types the fold needs, when the log can say (storage-fs reads its index).
    if (this.#sessionLog.readTyped) return (await this.#sessionLog.readTyped(sessionId, { types: UNFINISHED_WORK_EVENT_TYPES })).events;
    return this.#sessionLog.read(sessionId);
  }
}
