// Shapes of the demo's JSON API as the browser receives them (see apps/demo/README.md, "Web API")
// that are not yet in src/wire, the wire types shared with the server (error answers, DIO, world
// info and prompt itemization are there).
//
// Why these are declared here and not imported from src/server or @troupe/plugin-story: the UI is
// type-checked by web/tsconfig.json (DOM lib, no Node types, bundler resolution, no project
// references), and a type-only import of a server module would pull the kernel, Hono, zod and
// node:* declarations into that program. They are also the *wire* shapes (JSON after
// serialization, e.g. optional pipeline fields absent rather than undefined), which the server's
// zod-derived types do not spell out. Keep them in step with src/server/*.ts and
// @troupe/plugin-story's manifest when either changes.

import type { ApiProblem } from '../../src/wire/api-problem.js';

/** A character in the workspace manifest (its persona and knowledge are files). */
export interface CharacterEntry {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
}
/** A section of the story draft: written in `order` when enabled; `focus` narrows a character section to one character. */
export interface SectionEntry {
  readonly id: string;
  readonly title: string;
  readonly kind: 'prose' | 'character' | 'history';
  readonly order: number;
  readonly enabled: boolean;
  readonly focus: string | null;
}
/** A source document for local retrieval (its text is `sources/<id>.md`). */
export interface SourceEntry {
  readonly id: string;
  readonly title: string;
  readonly enabled: boolean;
}
/** The story pipeline's settings (`provider`/`model` absent = the session's model). */
export interface PipelineSettings {
  readonly maxParallel: number;
  readonly provider?: string;
  readonly model?: string;
  readonly webSearch: boolean;
  /** The whole story preparation's deadline (ms). */
  readonly deadlineMs: number;
  /** One stage call's timeout (ms). */
  readonly stageTimeoutMs: number;
}
/** A workspace's manifest.json. */
export interface StoryManifest {
  readonly name: string;
  readonly characters: readonly CharacterEntry[];
  readonly sections: readonly SectionEntry[];
  readonly sources: readonly SourceEntry[];
  readonly pipeline: PipelineSettings;
}
/** A whole workspace as the API answers it: revision, manifest and every file by path. */
export interface StoryWorkspace {
  readonly id: string;
  readonly revision: number;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
}
/** A row of `GET /api/stories` (`problem` when a hand edit broke the manifest; `revision` null then if unknown). */
export interface StorySummary {
  readonly id: string;
  readonly name: string;
  readonly revision: number | null;
  readonly characters: number;
  readonly sections: number;
  readonly sources: number;
  readonly problem?: string;
}

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
/** A row of `GET /api/sessions`. */
export interface SessionSummary {
  readonly id: string;
  readonly turns: number;
  readonly storyId: string | null;
  readonly lastActivity: string | null;
}

/** A `stage` event of the turn stream: a story stage (with its worker `item`) started, finished or failed. */
export interface StageProgress {
  readonly stage: string;
  readonly item?: string;
  readonly status: 'started' | 'done' | 'failed';
  readonly error?: ApiProblem;
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
  readonly events: readonly { readonly id: string; readonly type: string }[];
}
