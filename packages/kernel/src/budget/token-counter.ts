import type { ChatMessage, ChatModel, Tokenizer } from '../ports/chat-model.js';
import { estimateTokenizer } from './estimate-tokenizer.js';
import {
  DEFAULT_TOKEN_BUDGET,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  type TokenBudgetSettings,
  type TurnTokenBudget,
} from './token-budget.js';

const CACHE_LIMIT = 50_000;
// A server's count includes its own template and special tokens: weigh each report half, and
// never trust a factor so far off that it must be a misreport (a cached prompt, a proxy's sum).
const LEARNING_RATE = 0.5;
const MAX_CALIBRATION = 3;
// Below this, the server most likely did not read the whole prompt (Ollama's /v1 truncates to
// its loaded context silently and reports what it kept), so the report is not learned from.
const TRUNCATION_RATIO = 0.45;

/** What one report taught. */
export interface CalibrationResult {
  /** Tokens the kernel counted for the prompt (uncalibrated). */
  readonly counted: number;
  /** The server counted far fewer: it probably cut the prompt (see the README on Ollama). */
  readonly truncationSuspected: boolean;
}

interface ModelCounter {
  readonly tokenizer: Tokenizer;
  readonly cache: Map<string, number>;
  calibration: number;
}

/**
 * Counts tokens for every model a harness uses: one raw-count cache per tokenizer-and-model
 * (texts of the history repeat every turn, so each is tokenized once) and one calibration factor
 * per model, learned from the `usage.inputTokens` its server reports for the actor's prompt.
 */
export class TokenCounters {
  readonly #models = new Map<string, ModelCounter>();

  /**
   * The budget of one turn for the actor model.
   * @param model - the actor model (its `tokenizer` is used when it has one)
   * @param settings - the turn's `scenario.tokenBudget` (a missing `contextTokens` is the model's
   *   `capabilities.contextTokens`, else {@link DEFAULT_TOKEN_BUDGET})
   * @param omittedHistoryMessages - messages the bounded history read left out
   * @returns the budget handed to plugins as `contextKeys.tokenBudget`
   */
  forTurn(model: ChatModel, settings: TokenBudgetSettings | undefined, omittedHistoryMessages: number): TurnTokenBudget {
    const counter = this.#counter(model);
    const contextTokens = settings?.contextTokens ?? validWindow(model.capabilities?.contextTokens) ?? DEFAULT_TOKEN_BUDGET.contextTokens;
    const responseTokens = Math.min(settings?.responseTokens ?? DEFAULT_TOKEN_BUDGET.responseTokens, Math.floor(contextTokens / 2));
    const promptTokens = contextTokens - responseTokens;
    const calibration = counter.calibration;
    const countText = (text: string) => Math.ceil(raw(counter, text) * calibration);
    const countMessage = (message: ChatMessage) => Math.ceil((raw(counter, message.content) + MESSAGE_OVERHEAD_TOKENS) * calibration);
    return {
      contextTokens,
      responseTokens,
      promptTokens,
      worldInfoTokens: Math.min(settings?.worldInfoTokens ?? Math.floor(contextTokens / 4), promptTokens),
      omittedHistoryMessages,
      tokenizer: { id: counter.tokenizer.id, exact: counter.tokenizer.exact },
      calibration,
      countText,
      countMessage,
      countMessages: (messages) => {
        let total = REPLY_PRIMING_TOKENS;
        for (const message of messages) total += raw(counter, message.content) + MESSAGE_OVERHEAD_TOKENS;
        return Math.ceil(total * calibration);
      },
    };
  }

  /**
   * Learns from what the server counted for a prompt.
   * @param model - the model that answered
   * @param messages - the prompt it was sent
   * @param reportedInputTokens - `usage.inputTokens` of its answer
   * @returns what was counted and whether the server seems to have cut the prompt; undefined when there was nothing to learn
   */
  calibrate(model: ChatModel, messages: readonly ChatMessage[], reportedInputTokens: number): CalibrationResult | undefined {
    if (!(reportedInputTokens > 0) || messages.length === 0) return undefined;
    const counter = this.#counter(model);
    let counted = REPLY_PRIMING_TOKENS;
    for (const message of messages) counted += raw(counter, message.content) + MESSAGE_OVERHEAD_TOKENS;
    const observed = reportedInputTokens / counted;
    if (observed < TRUNCATION_RATIO) return { counted, truncationSuspected: true };
    const next = counter.calibration + LEARNING_RATE * (observed - counter.calibration);
    counter.calibration = Math.min(MAX_CALIBRATION, Math.max(TRUNCATION_RATIO, next));
    return { counted, truncationSuspected: false };
  }

  #counter(model: ChatModel): ModelCounter {
    const tokenizer = model.tokenizer ?? estimateTokenizer;
    const key = `${model.id}\u0000${tokenizer.id}`;
    let counter = this.#models.get(key);
    if (!counter) {
      counter = { tokenizer, cache: new Map(), calibration: 1 };
      this.#models.set(key, counter);
    }
    return counter;
  }
}

function validWindow(tokens: number | undefined): number | undefined {
  return tokens !== undefined && Number.isInteger(tokens) && tokens >= 256 ? tokens : undefined;
}

function raw(counter: ModelCounter, text: string): number {
  const cached = counter.cache.get(text);
  if (cached !== undefined) return cached;
  const count = counter.tokenizer.count(text);
  // A simple bound: when full, start over (the next turn re-counts only what it uses).
  if (counter.cache.size >= CACHE_LIMIT) counter.cache.clear();
  counter.cache.set(text, count);
  return count;
}
