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
