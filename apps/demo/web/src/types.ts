// Shapes of the demo's JSON API (see apps/demo/README.md, "Web API").

export interface ApiProblem {
  readonly code: string;
  readonly message: string;
}

export interface CharacterEntry {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
}
export interface SectionEntry {
  readonly id: string;
  readonly title: string;
  readonly kind: 'prose' | 'character' | 'history';
  readonly order: number;
  readonly enabled: boolean;
  readonly focus: string | null;
}
export interface SourceEntry {
  readonly id: string;
  readonly title: string;
  readonly enabled: boolean;
}
export interface PipelineSettings {
  readonly maxParallel: number;
  readonly provider?: string;
  readonly model?: string;
  readonly webSearch: boolean;
}
export interface StoryManifest {
  readonly name: string;
  readonly characters: readonly CharacterEntry[];
  readonly sections: readonly SectionEntry[];
  readonly sources: readonly SourceEntry[];
  readonly pipeline: PipelineSettings;
}
export interface StoryWorkspace {
  readonly id: string;
  readonly revision: number;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
}
export interface StorySummary {
  readonly id: string;
  readonly name: string;
  readonly revision: number | null;
  readonly characters: number;
  readonly sections: number;
  readonly sources: number;
  readonly problem?: string;
}

export interface ChatExchange {
  readonly turnId: string;
  readonly input: string;
  readonly reply: string;
}
export interface SessionSummary {
  readonly id: string;
  readonly turns: number;
  readonly storyId: string | null;
  readonly lastActivity: string | null;
}

export interface StageProgress {
  readonly stage: string;
  readonly item?: string;
  readonly status: 'started' | 'done' | 'failed';
  readonly error?: ApiProblem;
}
export interface PreparedMessage {
  readonly role: string;
  readonly content: string;
}
export interface TurnResultView {
  readonly turnId: string;
  readonly reply: string;
  readonly prepared: { readonly history: readonly PreparedMessage[] };
  readonly events: readonly { readonly id: string; readonly type: string }[];
}

export interface DioRequirement {
  readonly id: string;
  readonly text: string;
  readonly requestId: string;
  readonly createdAt: string;
}
export interface DioActivePrompt {
  readonly versionId: string;
  readonly sourceVersionId: string;
  readonly changeset: { readonly added: readonly { id: string; text: string }[]; readonly removed: readonly { id: string; text: string }[] };
  readonly compiledPrompt: string;
  readonly compiledPromptSha256: string;
  readonly hashVerified: boolean;
}
export interface DioTask {
  readonly requestId: string | null;
  readonly status: 'processing' | 'succeeded' | 'failed' | 'timed_out' | 'degraded' | 'schedule_failed';
  readonly promptChanged?: boolean;
  readonly compiledPromptSha256?: string;
  readonly error?: ApiProblem;
  readonly scheduledAt: string;
  readonly finishedAt?: string;
}
export interface DioView {
  readonly sessionId: string;
  readonly targetPromptId: string;
  readonly activePrompt: DioActivePrompt | null;
  readonly task: DioTask | null;
  readonly lastLookup: { readonly outcome: string; readonly turnId: string; readonly at: string } | null;
  readonly requirements: readonly DioRequirement[];
}
