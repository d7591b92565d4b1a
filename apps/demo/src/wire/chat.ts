// Wire shapes of a chat's messages and sessions: plain types with no imports, shared by the server
// and the browser UI. The exchanges are the kernel's committed turns (`foldCommittedTurns`);
// src/server/wire-conformance.ts checks they match. See ./README.md.

/** One committed step of a turn (a swipe): its input and reply as visible now (edits applied). */
export interface ChatStep {
  readonly step: number;
  readonly at: string;
  readonly input: string;
  readonly reply: string;
  readonly reasoning?: string;
  /** True when the player edited this step's input or reply. */
  readonly edited?: boolean;
  /** Set on a `continue` step: the step whose reply this one extends. */
  readonly continuedFrom?: number;
}
/**
 * One exchange of `GET /api/sessions/:id/messages`: the kept step's input and reply (the fields
 * of {@link ChatStep}) and every committed step of the turn, ordered by step number.
 */
export interface ChatExchange extends ChatStep {
  readonly turnId: string;
  readonly steps: readonly ChatStep[];
}
/** What happened to one DIO conversation on a branch: forked (with how many requirements), or why not. */
export type BranchDioOutcome =
  | { readonly targetPromptId: string; readonly status: 'forked'; readonly requirements: number; readonly versionId?: string }
  | { readonly targetPromptId: string; readonly status: 'degraded'; readonly reason: 'unsupported' | 'failed'; readonly code: string; readonly message: string };

/** `POST /api/sessions/:id/turns/:turnId/branch`: the new session, its exchanges, its chat (a library chat's copy) and the DIO forks. */
export interface BranchView {
  readonly sessionId: string;
  readonly from: string;
  readonly messages: readonly ChatExchange[];
  readonly chatId: string | null;
  /** The branch's own copy of the story workspace (null: the session had none selected). */
  readonly storyId: string | null;
  readonly dio: readonly BranchDioOutcome[];
}

/** A row of `GET /api/sessions`. */
export interface SessionSummary {
  readonly id: string;
  readonly turns: number;
  readonly storyId: string | null;
  readonly lastActivity: string | null;
  /** Set when the session's log is damaged: export rescues its intact events, delete removes it. */
  readonly problem?: string;
}
