/**
 * Character fields available as macros: `{{description}}`, `{{personality}}`, `{{scenario}}`,
 * `{{persona}}`, `{{mesExamples}}`, `{{charPrompt}}` (the card's `system_prompt`),
 * `{{charInstruction}}` (its `post_history_instructions`), `{{charDepthPrompt}}`, `{{charVersion}}`,
 * `{{creatorNotes}}`.
 */
export interface MacroFields {
  readonly description?: string;
  readonly personality?: string;
  readonly scenario?: string;
  readonly persona?: string;
  readonly mesExamples?: string;
  readonly charPrompt?: string;
  readonly charInstruction?: string;
  readonly charDepthPrompt?: string;
  readonly charVersion?: string;
  readonly creatorNotes?: string;
}

/** One chat message as the chat macros (`{{lastMessage}}`, …) see it. */
export interface MacroChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
}

/** Everything macro expansion can read or write. Only `variables` is required. */
export interface MacroEnvironment {
  /** `{{user}}` / `<USER>`; default `User`. */
  readonly user?: string;
  /** `{{char}}` / `<BOT>` / `<CHAR>`; default `Character`. */
  readonly char?: string;
  /** Group member names for `{{group}}` (without a group, `{{group}}` is `{{char}}`). */
  readonly group?: readonly string[];
  /** `{{original}}`: the text an override replaced ('' when there is none). */
  readonly original?: string;
  readonly fields?: MacroFields;
  /** Local (chat) variables: `getvar`, `setvar`, `{{.name}}`, …; written in text order. */
  readonly variables: Map<string, string>;
  /** Global (per-user) variables: `getglobalvar`, `{{$name}}`, …; absent = an empty map for this call. */
  readonly globalVariables?: Map<string, string>;
  /** `{{input}}`: the player's current input. */
  readonly input?: string;
  /** `{{model}}`: the model the actor will use. */
  readonly model?: string;
  /** The chat so far (oldest first), current input included, for `{{lastMessage}}` and friends. */
  readonly messages?: readonly MacroChatMessage[];
  /** Milliseconds since the epoch for the time macros (inject the kernel's clock); default `Date.now`. */
  readonly now?: () => number;
  /** IANA time zone for the time macros; default the process's zone. */
  readonly timeZone?: string;
  /**
   * Random numbers in [0, 1) for `{{random}}` and `{{roll}}`. Pass one seeded stream per turn so
   * replays are stable; default: a stream seeded from `seed` and the text.
   */
  readonly random?: () => number;
  /** Seed for the default random stream. */
  readonly seed?: string;
  /** Chat identity for `{{pick}}`: the same chat, text and position always pick the same item. */
  readonly chatId?: string;
  /** Changing this re-rolls every `{{pick}}` of the chat (SillyTavern's `/reroll-pick`). */
  readonly pickRerollSeed?: string;
  /** World-info outlets for `{{outlet::name}}`. */
  readonly outlets?: Readonly<Record<string, string>>;
  /** What to do with an unknown `{{macro}}`: keep it as text (default) or throw `MACRO_UNKNOWN`. */
  readonly unknownMacros?: 'keep' | 'error';
  /** Whether `setvar` may write slot variables (only the slot rules pass true). */
  readonly allowSlotWrites?: boolean;
  /** Applied to every macro's result (a regex pattern's macros are escaped this way). */
  readonly transformResult?: (value: string) => string;
  /** Called with the name of every unknown macro kept as text. */
  readonly onUnknownMacro?: (name: string) => void;
  /** Called for a macro that could not run (bad arguments, a failing handler); the text is kept. */
  readonly onWarning?: (message: string) => void;
}

/** Variables that only slot rules may bind; reading one unset is an error, never an empty string. */
export const SLOT_VARIABLES: ReadonlySet<string> = new Set(['dioCompiledPrompt', 'storyDraft']);
