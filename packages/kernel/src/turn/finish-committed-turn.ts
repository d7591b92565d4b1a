import { describeError } from '../errors.js';
import type { SessionEvent } from '../ports/session-log.js';
import { runIsolated } from '../hooks/hook-runner.js';
import type { TurnServices } from './run-turn.js';
import { TURN_COMMITTED, type TurnCommittedData } from './session-history.js';
import { LazyAbortController } from './lazy-abort-controller.js';
import { TurnState } from './turn-state.js';

// A committed turn's postReview work (e.g. the story continuity write-back) must happen exactly
// once even when the process dies after the commit. The kernel records when it has finished with
// a `kernel/post-review-done` event; a committed turn without one is finished later, from the
// committed reply in the session log: before the session's next turn, or when an app asks at
// start-up. Handlers make their own writes idempotent (the story plugin settles by marker).

/** Key of every `kernel/turn-committed` event, so the latest commit is one indexed lookup. */
export const TURN_COMMITTED_KEY = 'turn';

/** Type of the event that records that a committed turn's postReview handlers have run. */
export const POST_REVIEW_DONE = 'kernel/post-review-done';

/**
 * The key of a turn's `kernel/post-review-done` event.
 * @param turnId - the turn
 * @param step - its committed step
 * @returns `${turnId}:${step}`
 */
export function postReviewDoneKey(turnId: string, step: number): string {
  return `${turnId}:${step}`;
}

/**
 * The commits whose postReview work this harness knows is done (it ran it, or found its
 * `kernel/post-review-done`), per session, so the check before each turn looks up the latest
 * commit only, not also its "done" event. Bounded: the least recently used sessions are dropped
 * (they then cost the second lookup once more).
 */
export class FinishedCommits {
  readonly #bySession = new Map<string, CommitMark>();
  readonly #max: number;

  /** @param max - sessions remembered (default 4 096) */
  constructor(max = 4_096) {
    this.#max = max;
  }

  /** Whether `commit`'s postReview work is known to be done. */
  has(sessionId: string, commit: Pick<SessionEvent, 'id' | 'turnId' | 'step'>): boolean {
    const known = this.#bySession.get(sessionId);
    return known !== undefined && known.id === commit.id && known.turnId === commit.turnId && known.step === commit.step;
  }

  /** Records that `commit`'s postReview work is done. */
  mark(sessionId: string, commit: Pick<SessionEvent, 'id' | 'turnId' | 'step'>): void {
    this.#bySession.delete(sessionId);
    this.#bySession.set(sessionId, { id: commit.id, turnId: commit.turnId, step: commit.step });
    if (this.#bySession.size > this.#max) this.#bySession.delete(this.#bySession.keys().next().value as string);
  }
}

// The event id alone could repeat if a store were wiped and refilled; with the turn it cannot.
type CommitMark = Pick<SessionEvent, 'id' | 'turnId' | 'step'>;

/**
 * Finds the session's latest committed turn and, when its postReview handlers never finished
 * (the process died, or `close()` cut them at its deadline), runs them now with the committed
 * input and reply, then records `kernel/post-review-done`. Only the latest commit can be pending:
 * a session's next turn finishes it before it runs. The handlers run as a fiber in the harness's
 * scope, like a turn's own postReview work (`close()` drains it within its grace, then interrupts it).
 * @param services - the harness's services
 * @param sessionId - the session
 * @returns true when a turn was finished now
 * @throws `KERNEL_HARNESS_CLOSED` when the close grace interrupted the handlers (nothing is
 * recorded, so the next start retries)
 */
export async function finishCommittedTurn(services: TurnServices, sessionId: string): Promise<boolean> {
  const handlers = services.hooks.get('postReview');
  if (handlers.length === 0) return false; // nothing ever waits for a turn's postReview
  const commit = await services.sessionLog.findLatest(sessionId, { type: TURN_COMMITTED, key: TURN_COMMITTED_KEY });
  if (!commit || services.finishedCommits.has(sessionId, commit)) return false;
  const done = await services.sessionLog.findLatest(sessionId, { type: POST_REVIEW_DONE, key: postReviewDoneKey(commit.turnId, commit.step) });
  if (done) {
    services.finishedCommits.mark(sessionId, commit);
    return false;
  }
  const data = commit.data as Partial<TurnCommittedData> | null;
  if (typeof data?.input !== 'string' || typeof data.reply !== 'string') return false; // a hand-edited log: nothing to finish from
  const { messages: history } = await services.histories.history(sessionId, commit.turnId, services.maxHistoryTurns);
  const abort = new LazyAbortController();
  const state = new TurnState({
    turnId: commit.turnId,
    sessionId,
    step: commit.step,
    input: { sessionId, text: data.input, turnId: commit.turnId, step: commit.step },
    scenario: services.scenario,
    history,
    abort,
    sessionLog: services.sessionLog,
    models: services.models,
    clock: services.clock,
    background: services.background,
  });
  const turn = {
    turnId: commit.turnId,
    sessionId,
    step: commit.step,
    input: data.input,
    reply: data.reply,
    // The actor's exact prompt is not in the log; handlers see the conversation it was built from.
    prepared: { history: [...history, { role: 'user' as const, content: data.input }] },
    commitEvent: commit,
    // For handlers that start during a commit: this one is stored already.
    stored: Promise.resolve(commit),
    resumed: true as const,
  };
  const errors = await services.committedWork.run(abort, async () => {
    const failed = await runIsolated(handlers, turn, state, services.runner);
    state.queue(POST_REVIEW_DONE, { resumed: true, failed: failed.length }, { key: postReviewDoneKey(commit.turnId, commit.step) });
    await state.flush();
    return failed;
  });
  services.finishedCommits.mark(sessionId, commit);
  services.logger.info('finished the postReview work of a committed turn', { sessionId, turnId: commit.turnId, step: commit.step, failed: errors.length });
  return true;
}

/**
 * Like {@link finishCommittedTurn}, but a failure other than cancellation is logged and swallowed:
 * it must never keep the session's next turn from running.
 * @param services - the harness's services
 * @param sessionId - the session
 * @returns true when a turn was finished now
 * @throws `KERNEL_HARNESS_CLOSED` when the close grace interrupted it
 */
export async function finishCommittedTurnQuietly(services: TurnServices, sessionId: string): Promise<boolean> {
  try {
    return await finishCommittedTurn(services, sessionId);
  } catch (error) {
    // Past the close grace nothing more runs: the session's next turn must not start either.
    if (services.committedWork.closed) throw error;
    services.logger.error('could not finish a committed turn', { sessionId, error: describeError(error) });
    return false;
  }
}
