// Wire shapes of the turn stream (`POST /api/sessions/:id/turns` and the regenerate / continue
// routes): plain types with no imports, shared by the server and the browser UI. See ./README.md.
import type { ApiProblem } from './api-problem.js';

/** A `stage` event of the turn stream: a story stage (with its worker `item`) started, finished or failed. */
export interface StageProgress {
  readonly stage: string;
  readonly item?: string;
  readonly status: 'started' | 'done' | 'failed';
  readonly error?: ApiProblem;
}
/** The `error` event of the turn stream: a new turn's also names the turn, so the player's retry can replay it. */
export interface TurnStreamError extends ApiProblem {
  readonly turnId?: string;
}
/** One message of the actor's prepared prompt. */
export interface PreparedMessage {
  readonly role: string;
  readonly content: string;
}
/** The `result` event of the turn stream. */
export interface TurnResultView {
  readonly turnId: string;
  /** The committed step (0 for a new turn; one past the highest for a regeneration or continue). */
  readonly step: number;
  readonly reply: string;
  readonly reasoning?: string;
  readonly prepared: { readonly history: readonly PreparedMessage[] };
  readonly events: readonly { readonly id: string; readonly type: string; readonly at: string }[];
  /** Failures of the turn's post-review work (the reply is committed regardless). */
  readonly postReviewErrors: readonly ApiProblem[];
}
