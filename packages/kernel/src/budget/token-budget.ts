import type { ChatMessage, Tokenizer } from '../ports/chat-model.js';

/**
 * A chat's token budget, from the app's settings (per turn via `scenario.tokenBudget`, or the
 * harness's default scenario). Every field is optional; see {@link DEFAULT_TOKEN_BUDGET}.
 */
export interface TokenBudgetSettings {
  /** The model's context window in tokens (prompt + reply); default: the model's `capabilities.contextTokens`, else 8192. */
  readonly contextTokens?: number;
  /** Tokens kept free for the reply; when set, also sent as the actor's `maxOutputTokens`. */
  readonly responseTokens?: number;
  /** Tokens world info (lorebook entries) may take of the prompt (default: a quarter of the context). */
  readonly worldInfoTokens?: number;
}

/** Defaults of {@link TokenBudgetSettings}: an 8k window (what most local servers load), 1k for the reply. */
export const DEFAULT_TOKEN_BUDGET = Object.freeze({ contextTokens: 8192, responseTokens: 1024 });

/** Framing tokens per chat message (role markers, separators) in ChatML-like templates. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens that prime the reply (`<|im_start|>assistant`) after the last message. */
export const REPLY_PRIMING_TOKENS = 3;

/**
 * The budget of one turn, as `ctx.get(contextKeys.tokenBudget)` gives it to plugins: the numbers,
 * and a counter for the actor model (its own tokenizer or the kernel's estimate, calibrated by
 * what the server reported on earlier turns, with counts of repeated texts cached).
 */
export interface TurnTokenBudget {
  readonly contextTokens: number;
  readonly responseTokens: number;
  /** What the prompt may take: `contextTokens - responseTokens`. */
  readonly promptTokens: number;
  /** What world info may take (a part of `promptTokens`). */
  readonly worldInfoTokens: number;
  /** Earlier messages the kernel did not read for this turn (beyond `maxHistoryTurns`). */
  readonly omittedHistoryMessages: number;
  /** The counting method (`o200k_base`, `estimate`, …) and whether it is exact. */
  readonly tokenizer: Pick<Tokenizer, 'id' | 'exact'>;
  /** The multiplier learned from the server's `usage.inputTokens` (1 until a server reports). */
  readonly calibration: number;
  /**
   * Tokens of a text, calibrated.
   * @param text - any text
   */
  countText(text: string): number;
  /**
   * Tokens of one message including its framing, calibrated.
   * @param message - a chat message
   */
  countMessage(message: ChatMessage): number;
  /**
   * Tokens of a whole prompt: every message plus the reply priming, calibrated.
   * @param messages - the messages
   */
  countMessages(messages: readonly ChatMessage[]): number;
}
