// Wire shapes: plain types with no imports, shared by the server (src/) and the browser UI
// (web/, type-checked with the DOM lib and no Node types). See ./README.md.

/**
 * Where a message of the actor's prompt came from, as far as the turn can tell: the player's
 * input, an earlier message of the chat, the continued reply (`continue`), world info, the DIO
 * compiled prompt, the story draft, or the preset/character prompts (everything else the
 * assembler wrote: main prompt, card fields, examples, author's note, post-history instructions).
 */
export type PromptBlockSource = 'input' | 'history' | 'continuation' | 'worldInfo' | 'dio' | 'storyDraft' | 'prompt';

/** The role of a prompt message (the kernel's `ChatRole`; src/server/wire-conformance.ts checks they match). */
export type PromptRole = 'system' | 'user' | 'assistant' | 'tool';

/** One message of the actor's prompt, itemized (SillyTavern's "prompt itemization"). */
export interface ItemizedBlock {
  /** Position in the prompt (0 = first message sent). */
  readonly index: number;
  readonly role: PromptRole;
  readonly name?: string;
  readonly source: PromptBlockSource;
  /** Tokens of the message including its framing, as the turn's budget counted them. */
  readonly tokens: number;
  readonly chars: number;
  /** The start of the text (cut to a few hundred characters, fewer for history). */
  readonly preview: string;
  /** True when {@link preview} is cut. */
  readonly truncated: boolean;
}

/** A step's itemized actor prompt, as recorded in the session log when the step ran. */
export interface ActorPromptData {
  readonly blocks: readonly ItemizedBlock[];
  /** Tokens of the whole prompt (every message plus the reply priming). */
  readonly totalTokens: number;
  /** The turn's budget: the model's window, what the reply keeps free, what the prompt may take. */
  readonly contextTokens: number;
  readonly responseTokens: number;
  readonly promptTokens: number;
  /** How the tokens were counted (`o200k_base`, `estimate`, …), whether exactly, and the server calibration applied. */
  readonly tokenizer: TokenizerInfo;
  readonly calibration: number;
}

/** `GET /api/sessions/:id/turns/:turnId/prompt[?step=n]`: the itemized prompt of a step. */
export interface PromptItemization extends ActorPromptData {
  readonly sessionId: string;
  readonly turnId: string;
  readonly step: number;
  /** True when the step is the turn's kept one. */
  readonly kept: boolean;
}

/** Which tokenizer counted, and whether it is the model's own (`exact`) or an estimate. */
export interface TokenizerInfo {
  readonly id: string;
  readonly exact: boolean;
}

/** Token counts of one visible exchange. */
export interface MessageTokens {
  readonly turnId: string;
  readonly step: number;
  readonly input: number;
  readonly reply: number;
}

/** `GET /api/sessions/:id/token-counts`: tokens of every visible exchange, by the actor model's tokenizer. */
export interface TokenCounts {
  readonly sessionId: string;
  readonly tokenizer: TokenizerInfo;
  readonly messages: readonly MessageTokens[];
}
