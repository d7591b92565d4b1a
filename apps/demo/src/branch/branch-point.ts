import { type CommittedTurnRecord, foldCommittedTurns, type SessionEvent } from '@troupe/kernel';

/** Where a branch from one visible exchange cuts its session's log, and what the branch must show. */
export interface BranchPoint {
  /** The last event the branch copies: the one right before the next visible exchange began (or the log's last). */
  readonly atEventId: string;
  /** The exchanges the branch shows, as the session shows them now, in order: the chosen one last. */
  readonly shown: readonly CommittedTurnRecord[];
  /** The exchanges as the copy alone shows them (before later swipes and edits are applied to it). */
  readonly copied: ReadonlyMap<string, CommittedTurnRecord>;
}

/**
 * Where to branch a session so that the new one holds the chat up to and including `turnId`, as
 * the player sees it now. The copy ends right before the first event of the next visible exchange:
 * what happened after that (later turns, their DIO requirements, a story or lorebook chosen later)
 * stays out of the branch. Swipes and edits of the kept exchanges made after that point are not in
 * the copy either; `shown` is what the branch must be brought to (see `branchSession`).
 * @param events - the session's events, in log order
 * @param turnId - the exchange to branch from (a turn visible now)
 * @returns the cut and the exchanges the branch shows, or undefined when `turnId` is not visible
 */
export function branchPoint(events: readonly SessionEvent[], turnId: string): BranchPoint | undefined {
  const visible = [...foldCommittedTurns(events).values()];
  const at = visible.findIndex((turn) => turn.turnId === turnId);
  if (at < 0) return undefined;
  const last = events.at(-1);
  if (!last) return undefined;
  const next = visible[at + 1]?.turnId;
  const firstOfNext = next === undefined ? -1 : events.findIndex((event) => event.turnId === next);
  // The next exchange's first event is never the log's first: the chosen turn's events come before it.
  const end = firstOfNext > 0 ? firstOfNext : events.length;
  const cut = events[end - 1] ?? last;
  return { atEventId: cut.id, shown: visible.slice(0, at + 1), copied: foldCommittedTurns(events.slice(0, end)) };
}
