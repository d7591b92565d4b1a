// Wire shapes of the story workspace API: plain types with no imports, shared by the server and the browser UI. See ./README.md.

// The manifest shapes are plugin-story's; src/server/wire-conformance.ts checks the package's types fit them.

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
/** A workspace's manifest.json (plugin-story keeps any other top-level fields a player added; the UI ignores them). */
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

/** One row of the story list. */
export interface StorySummary {
  readonly id: string;
  readonly name: string;
  readonly revision: number | null;
  readonly characters: number;
  readonly sections: number;
  readonly sources: number;
  /**
   * Set when the manifest cannot be read (a hand edit broke it), or when the store's own files are
   * damaged (`revision` is then null: delete it with `DELETE /api/stories/:id` without a revision).
   * The files are untouched.
   */
  readonly problem?: string;
}
