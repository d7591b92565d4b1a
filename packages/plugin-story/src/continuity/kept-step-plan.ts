import { CHAT_CONTROL_EVENTS, foldCommittedTurns, type SessionEvent } from '@troupe/kernel';
import * as z from 'zod';
import { STORY_EVENTS, settleMarker } from '../events.js';

/** A settlement block of one turn: its marker and the exact text it appended per file. */
export interface SettleBlock {
  readonly marker: string;
  readonly appends: Readonly<Record<string, string>>;
}

/** An edited reply whose settlement must be computed (the continuity worker reads the new text). */
export interface ResettleRequest {
  readonly turnId: string;
  readonly step: number;
  readonly reply: string;
  /** The `kernel/turn-edited` event the new reply comes from. */
  readonly editId: string;
  readonly marker: string;
}

/**
 * What one turn's continuity record should be: every block ever written for it (`candidates`)
 * and the one that should stand — a block, a re-settlement to compute, or nothing (the turn was
 * removed from the chat).
 */
export interface TurnBlockPlan {
  readonly turnId: string;
  readonly candidates: readonly SettleBlock[];
  readonly desired: { readonly kind: 'block'; readonly block: SettleBlock } | { readonly kind: 'resettle'; readonly request: ResettleRequest } | { readonly kind: 'none' };
}

/** The data of an `agent-rp/story-settled` event: which workspace, the block's marker and what it appended per file. */
export const SettledSchema = z.object({ workspaceId: z.string(), marker: z.string(), appends: z.record(z.string(), z.string()) });
/** The data of an `agent-rp/story-resettled` event: a settled block, plus the turn and the edit it was made for. */
export const ResettledSchema = SettledSchema.extend({ turnId: z.string(), editId: z.string() });
const EditSchema = z.object({ reply: z.string() });
const ForkedSchema = z.object({ from: z.string(), to: z.string() });

/**
 * Whether a settlement recorded for workspace `id` at log position `at` is in `workspaceId`'s
 * record: its own, or one of a workspace forked into it later in the log (`forkStoryForBranch`
 * copies the blocks; a fork of a fork counts too).
 */
function recordsOf(events: readonly SessionEvent[], workspaceId: string): (id: string, at: number) => boolean {
  // Workspace → the log position up to which its settlements count as `workspaceId`'s.
  const until = new Map<string, number>([[workspaceId, Number.POSITIVE_INFINITY]]);
  for (let at = events.length - 1; at >= 0; at--) {
    const event = events[at];
    if (event?.type !== STORY_EVENTS.workspaceForked) continue;
    const fork = ForkedSchema.safeParse(event.data);
    if (!fork.success || until.has(fork.data.from)) continue;
    const limit = until.get(fork.data.to);
    if (limit !== undefined && at < limit) until.set(fork.data.from, at);
  }
  return (id, at) => at < (until.get(id) ?? Number.NEGATIVE_INFINITY);
}

/**
 * The marker of an edited reply's settlement: `story:<turnId>[:<step>]:edit-<event id>`.
 * @param turnId - the turn
 * @param step - the edited step
 * @param editId - the `kernel/turn-edited` event's id
 */
export function editedMarker(turnId: string, step: number, editId: string): string {
  return `${settleMarker(turnId, step)}:edit-${editId}`;
}

/**
 * Plans the continuity record of a session's settled turns against what the chat shows now
 * (`foldCommittedTurns`): the kept step's settlement stands (a swipe back to step 0 brings step
 * 0's block back), an edited reply stands as its own re-settlement, a removed turn has none. A
 * turn whose kept step was never settled (played before the story was enabled) is left alone.
 * Settlements recorded for a workspace this one was forked from (a branch's copy, see
 * `forkStoryForBranch`) count as this one's. Pure: reads only the events.
 * @param events - the session's events, in log order
 * @param workspaceId - the workspace being reconciled
 * @param currentTurnId - the turn now running (its own postReview settles it)
 * @returns one plan per settled turn, in order of first settlement
 */
export function planKeptSteps(events: readonly SessionEvent[], workspaceId: string, currentTurnId: string): TurnBlockPlan[] {
  const settled = new Map<string, Map<number, SettleBlock>>();
  const resettled = new Map<string, SettleBlock & { readonly turnId: string }>();
  const lastReplyEdit = new Map<string, SessionEvent>();
  const holds = recordsOf(events, workspaceId);
  for (const [at, event] of events.entries()) {
    if (event.type === STORY_EVENTS.settled) {
      const data = SettledSchema.safeParse(event.data);
      if (!data.success || !holds(data.data.workspaceId, at) || Object.keys(data.data.appends).length === 0) continue;
      const steps = settled.get(event.turnId) ?? new Map<number, SettleBlock>();
      steps.set(event.step, { marker: data.data.marker, appends: data.data.appends });
      settled.set(event.turnId, steps);
    } else if (event.type === STORY_EVENTS.resettled) {
      const data = ResettledSchema.safeParse(event.data);
      if (data.success && holds(data.data.workspaceId, at)) resettled.set(data.data.marker, { turnId: data.data.turnId, marker: data.data.marker, appends: data.data.appends });
    } else if (event.type === CHAT_CONTROL_EVENTS.turnEdited && EditSchema.safeParse(event.data).success) {
      lastReplyEdit.set(`${event.turnId}\u0000${event.step}`, event);
    }
  }
  const visible = foldCommittedTurns(events);
  const plans: TurnBlockPlan[] = [];
  for (const [turnId, steps] of settled) {
    if (turnId === currentTurnId) continue;
    const candidates: SettleBlock[] = [...steps.values(), ...[...resettled.values()].filter((block) => block.turnId === turnId).map(({ marker, appends }) => ({ marker, appends }))];
    const turn = visible.get(turnId);
    if (!turn) {
      plans.push({ turnId, candidates, desired: { kind: 'none' } });
      continue;
    }
    const edit = lastReplyEdit.get(`${turnId}\u0000${turn.step}`);
    const original = turn.steps.find((step) => step.step === turn.step);
    if (edit && original?.edited) {
      const marker = editedMarker(turnId, turn.step, edit.id);
      const done = resettled.get(marker);
      plans.push({ turnId, candidates, desired: done ? { kind: 'block', block: { marker: done.marker, appends: done.appends } } : { kind: 'resettle', request: { turnId, step: turn.step, reply: turn.reply, editId: edit.id, marker } } });
      continue;
    }
    const kept = steps.get(turn.step);
    if (kept) plans.push({ turnId, candidates, desired: { kind: 'block', block: kept } });
  }
  return plans;
}
