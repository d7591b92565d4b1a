// Wire shapes of the library API: plain types with no imports, shared by the server and the browser UI. See ./README.md.

/** A row of the character list. */
export interface CharacterSummary {
  readonly id: string;
  readonly revision: number;
  readonly name: string;
  readonly displayName: string;
  readonly tags: readonly string[];
  readonly creator: string;
  readonly hasAvatar: boolean;
  readonly format: 'json' | 'png' | 'charx';
  readonly spec: string;
  /** 1 (the first message) + the alternate greetings. */
  readonly greetings: number;
}

/** A row of the preset list. */
export interface PresetSummary {
  readonly id: string;
  readonly name: string;
  readonly builtIn: boolean;
  readonly prompts: number;
  readonly warnings: number;
  /** Whether a DIO compiled prompt can be placed in it. */
  readonly dioAccepts: boolean;
}

/** The player as a character sees them: `{{user}}` is the name, `{{persona}}` the description. */
export interface Persona {
  readonly id: string;
  readonly revision: number;
  readonly name: string;
  readonly description: string;
  readonly isDefault: boolean;
}

/** The card fields the character view edits. */
export interface CharacterFields {
  readonly name: string;
  readonly nickname: string;
  readonly description: string;
  readonly personality: string;
  readonly scenario: string;
  readonly first_mes: string;
  readonly alternate_greetings: readonly string[];
  readonly mes_example: string;
  readonly creator_notes: string;
  readonly system_prompt: string;
  readonly post_history_instructions: string;
  readonly tags: readonly string[];
  readonly creator: string;
  readonly character_version: string;
}

/** `GET /api/characters/:id`. */
export interface CharacterDetail extends CharacterSummary {
  readonly fields: CharacterFields;
  readonly notes: readonly string[];
  readonly importedAt: string;
  readonly lorebookEntries: number;
  readonly specVersion: string;
}

/** One issue of the assembler's `validatePreset`. */
export interface PresetIssue {
  readonly code: string;
  readonly message: string;
  readonly path?: string;
}

/** `GET /api/presets/:id`. */
export interface PresetDetail extends PresetSummary {
  readonly preset: { readonly prompts: readonly { identifier: string; name: string; role: string; content: string; enabled?: boolean; marker?: string }[] };
  readonly importWarnings: readonly string[];
  readonly report: {
    readonly ok: boolean;
    readonly issues: readonly PresetIssue[];
    readonly dio: { readonly accepts: true; readonly name?: string; readonly slot: { readonly identifier?: string; readonly rule?: string } } | { readonly accepts: false; readonly reason: PresetIssue };
    readonly characterText?: readonly { readonly identifier: string; readonly name: string; readonly kind?: string }[];
    readonly storyDraft: string;
    readonly warnings: readonly PresetIssue[];
  };
  readonly importedAt: string | null;
  /** What preparing the preset for DIO did, when it was prepared. */
  readonly dioPreparation?: DioPreparation | null;
}

/** `prepareForDio`'s report, as the preset view shows it. */
export interface DioPreparation {
  readonly status: 'ready' | 'prepared' | 'refused';
  readonly reason?: PresetIssue;
  readonly notes: readonly string[];
  readonly disabled: readonly string[];
  readonly remaining: readonly { readonly identifier: string; readonly name: string; readonly fields: readonly string[] }[];
  readonly clean: boolean;
}

/** `GET /api/chats/:id`. */
export interface ChatView {
  readonly id: string;
  readonly revision: number;
  readonly title: string;
  readonly characterId: string;
  readonly presetId: string;
  readonly personaId: string;
  readonly storyId: string | null;
  readonly greetingIndex: number;
  readonly useCardPrompts: boolean;
  readonly createdAt: string;
  readonly character: { readonly id: string; readonly name: string; readonly displayName: string; readonly hasAvatar: boolean } | null;
  readonly preset: { readonly id: string; readonly name: string; readonly dioAccepts: boolean } | null;
  readonly persona: { readonly id: string; readonly name: string } | null;
  readonly greetings: readonly string[];
  readonly dio: { readonly enabled: boolean; readonly targetPromptId: string | null; readonly reason: string | null };
  readonly problem: string | null;
}

/** How a connection talks to its server (see the model-openai-compatible README). */
export interface ServerSettings {
  readonly structuredOutput: 'auto' | 'json_schema' | 'json_object' | 'prompt';
  readonly streamUsage: 'auto' | 'on' | 'off';
  readonly tools: 'auto' | 'on' | 'off';
}

/** `GET /api/settings/model`. */
export interface ModelSettingsAnswer {
  readonly settings: {
    readonly baseUrl: string | null;
    readonly model: string | null;
    readonly hasApiKey: boolean;
    readonly contextSize: number | null;
    readonly maxTokens: number | null;
    /** How long the model may take to start answering (s); null: the provider's default (300). */
    readonly timeoutSeconds: number | null;
    readonly story: { readonly baseUrl: string | null; readonly model: string | null; readonly hasApiKey: boolean; readonly timeoutSeconds: number | null } & ServerSettings;
  } & ServerSettings;
  readonly source: 'environment' | 'settings' | 'offline';
  readonly modelId: string;
  readonly offline: boolean;
  readonly environment: boolean;
  readonly problem?: string;
}
