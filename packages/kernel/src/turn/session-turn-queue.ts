import { linkedController } from '../abort.js';
import { SESSION_ID_PATTERN } from '../ports/session-log.js';
import { hasSessionTurnLock } from '../ports/session-turn-lock.js';
import type { HeldSessionTurn, SessionTurnLock } from '../ports/session-turn-lock.js';
import type { TurnServices } from './run-turn.js';

/**
 * Runs a session's turn (or chat control) holding the store's turn lock for that session, when
 * the session log has one ({@link hasSessionTurnLock}); otherwise runs it directly (the harness's
 * in-process queue is then the only serialisation). `work` gets the harness's services and the
 * held lock, so the turn checks the lock is still its own right before it commits.
 * @param services - the harness's services
 * @param sessionId - the session ('' or an invalid id: no lock, the work's own validation reports it)
 * @param work - the turn
 * @param signals - cancel the wait for the lock (never the work itself)
 * @returns what `work` returns
 * @throws the first aborted signal's reason when the wait was cancelled; the lock's STORAGE_IO
 * when it waited too long; whatever `work` throws
 */
export function withSessionTurnLock<T>(
  services: TurnServices,
  sessionId: string,
  work: (services: TurnServices, heldTurn?: HeldSessionTurn) => Promise<T>,
  signals: readonly AbortSignal[],
): Promise<T> {
  // Not an async function: every turn starts and ends through here, and an async function that
  // returns a promise adds promise jobs at both ends (a synchronous throw still rejects).
  try {
    const log = services.sessionLog;
    if (!hasSessionTurnLock(log) || !SESSION_ID_PATTERN.test(sessionId)) return work(services);
    // One signal is passed as is (the lock consults it only while waiting): no controller per turn.
    if (signals.length === 1) return log.lockSessionTurn(sessionId, (heldTurn) => work(services, heldTurn), { signal: signals[0] as AbortSignal });
    return withLinkedSignals(log, sessionId, services, work, signals);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function withLinkedSignals<T>(
  log: SessionTurnLock,
  sessionId: string,
  services: TurnServices,
  work: (services: TurnServices, heldTurn?: HeldSessionTurn) => Promise<T>,
  signals: readonly AbortSignal[],
): Promise<T> {
  const { controller, dispose } = linkedController(...signals);
  try {
    return await log.lockSessionTurn(
      sessionId,
      (heldTurn) => {
        dispose(); // the signals only ever cancel the wait
        return work(services, heldTurn);
      },
      { signal: controller.signal },
    );
  } finally {
    dispose();
  }
}
