// Wire shapes of the DIO view: plain types with no imports, shared by the server and the browser UI. See ./README.md.

import type { ApiProblem } from './api-problem.js';

/** Where the session's latest lasting requirement stands, from its `dio/*` events. */
export interface DioTaskView {
  readonly requestId: string | null;
  /**
   * `submitting` while the service was down or slow and the plugin retries in the background;
   * `processing` until the background wait reports; `degraded` when it gave up;
   * `schedule_failed` when the service refused it (or never answered within the budget).
   */
  readonly status: 'submitting' | 'processing' | 'succeeded' | 'failed' | 'timed_out' | 'degraded' | 'schedule_failed';
  readonly promptChanged?: boolean;
  readonly sourceVersionId?: string;
  readonly compiledPromptSha256?: string;
  readonly error?: ApiProblem;
  /** When the requirement was scheduled (or refused), and when its outcome arrived. */
  readonly scheduledAt: string;
  readonly finishedAt?: string;
}

/**
 * The prompt the latest turn applied (from `dio/active-prompt-*`); `dropped`: it was found but did
 * not fit the chat's context, so the turn played the normal character prompt (`actor-assembler/dio-dropped`).
 */
export interface DioLastLookupView {
  readonly outcome: 'applied' | 'none' | 'skipped' | 'degraded' | 'dropped';
  readonly turnId: string;
  readonly at: string;
  readonly data: unknown;
}

/** A requirement change recorded outside turns: a revocation, or the fork of a branched session. */
export interface DioChangeView {
  readonly kind: 'revoked' | 'forked' | 'fork_degraded';
  readonly at: string;
  /** Revoked: the requirement's id and text (when the service said). */
  readonly requirementId?: string;
  readonly text?: string;
  /** Forked: from which session, and how many requirements came along. */
  readonly fromSessionId?: string;
  readonly requirements?: number;
  /** Fork degraded: why (`unsupported`: the DIO service has no fork endpoint). */
  readonly reason?: string;
  readonly error?: ApiProblem;
}

/** An active lasting requirement at the DIO service. */
export interface DioRequirementView {
  readonly id: string;
  readonly text: string;
  readonly requestId: string;
  readonly createdAt: string;
}

/** The active compiled prompt (`hashVerified`: the server checked its SHA-256). */
export interface DioActivePromptView {
  readonly versionId: string;
  readonly sourceVersionId: string;
  readonly changeset: { readonly added: readonly { id: string; text: string }[]; readonly removed: readonly { id: string; text: string }[] };
  readonly compiledPrompt: string;
  readonly compiledPromptSha256: string;
  readonly hashVerified: boolean;
}

/**
 * Whether the DIO service answered the view's questions. When it did not (down, slow, a malformed
 * answer, a hash that does not match), `error` says why; the task status still comes from the
 * session log, and `activePrompt` / `requirements` are then unknown (shown empty).
 */
export interface DioServiceStatusView {
  readonly reachable: boolean;
  readonly error?: ApiProblem;
}

/** `GET /api/sessions/:id/dio`: prompt, task, last lookup, requirements and the changes made outside turns. */
export interface DioView {
  readonly sessionId: string;
  readonly targetPromptId: string;
  readonly activePrompt: DioActivePromptView | null;
  readonly task: DioTaskView | null;
  readonly lastLookup: DioLastLookupView | null;
  readonly requirements: readonly DioRequirementView[];
  readonly changes: readonly DioChangeView[];
  /** Whether the service could be asked (the local status above is there either way). */
  readonly service: DioServiceStatusView;
}
