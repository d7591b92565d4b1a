import { type ChatMessage, type ChatModel, estimateTokenizer, type Tokenizer } from '@troupe/kernel';
import { MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from '@troupe/kernel/util';
import { ownString } from '../retrieval/own-string.js';

/** Token budget settings of the story stages (plugin option `stagePrompt`); every field is optional. */
export interface StagePromptSettings {
  /** The pipeline model's context window in tokens; default: its `capabilities.contextTokens`, else 8192. */
  readonly contextTokens?: number;
  /** Tokens kept free for a stage's answer (default 1024, at most half the window). */
  readonly responseTokens?: number;
  /** Tokens of public history research and the director get: a recent window plus retrieved older excerpts (default 2048). */
  readonly historyTokens?: number;
  /** Tokens of a character's own `knowledge.md` its worker gets, the same way (default 2048). */
  readonly knowledgeTokens?: number;
  /** Settled turns the recent window of history and knowledge holds at most (default 8), within 60 % of their tokens. */
  readonly recentTurns?: number;
  /** Older excerpts retrieved for history and knowledge at most (default 4), in the tokens the recent window leaves. */
  readonly olderExcerpts?: number;
}

/** The defaults of {@link StagePromptSettings}. */
export const DEFAULT_STAGE_PROMPT = Object.freeze({ contextTokens: 8192, responseTokens: 1024, historyTokens: 2048, knowledgeTokens: 2048, recentTurns: 8, olderExcerpts: 4 });

/** What a stage's prompt may take and how its tokens are counted. */
export interface StagePromptBudget {
  /** Most tokens of a stage's whole request (every message with its framing). */
  readonly promptTokens: number;
  /** Tokens the public-history block starts from (recent window + retrieved excerpts). */
  readonly historyTokens: number;
  /** Tokens a character's knowledge block starts from. */
  readonly knowledgeTokens: number;
  /** Settled turns in the recent window of history and knowledge at most. */
  readonly recentTurns: number;
  /** Older excerpts of history and knowledge retrieved at most. */
  readonly olderExcerpts: number;
  /** The counting method (the model's tokenizer id, or `estimate`). */
  readonly tokenizer: string;
  /**
   * Tokens of a text.
   * @param text - any text
   */
  count(text: string): number;
  /**
   * Tokens of a whole request: each message's content plus its framing, plus the reply priming.
   * @param messages - the request's messages
   */
  countMessages(messages: readonly ChatMessage[]): number;
  /**
   * What is enough to know whether a request fits `promptTokens`: an upper bound of
   * {@link StagePromptBudget.countMessages} from the messages' lengths when the tokenizer has a
   * known most-tokens-per-character and that bound fits (no counting: most stage prompts are far
   * under budget), otherwise `countMessages` itself. Without it, callers use `countMessages`.
   * @param messages - the request's messages
   */
  countMessagesAtMost?(messages: readonly ChatMessage[]): number;
}

// Counts of short texts (history and knowledge lines) are remembered: they repeat every turn.
const CACHED_TEXT_CHARS = 2000;
const CACHE_ENTRIES = 20_000;
const counts = new WeakMap<Tokenizer, Map<string, number>>();

function cachedCount(tokenizer: Tokenizer, text: string): number {
  if (text.length > CACHED_TEXT_CHARS) return tokenizer.count(text);
  let cache = counts.get(tokenizer);
  if (!cache) {
    cache = new Map();
    counts.set(tokenizer, cache);
  }
  const known = cache.get(text);
  if (known !== undefined) return known;
  const count = tokenizer.count(text);
  // A simple bound: when full, start over (the next turn re-counts only what it uses).
  if (cache.size >= CACHE_ENTRIES) cache.clear();
  // Keys are lines cut from whole documents: keep a copy, never a view into the document.
  cache.set(ownString(text), count);
  return count;
}

/**
 * The stage budget for a pipeline model: its tokenizer (the kernel's Chinese-aware estimate when
 * it has none), its window minus the answer's reserve.
 * @param model - the pipeline model (undefined: the defaults with the estimate)
 * @param settings - the plugin's `stagePrompt` settings
 * @returns the budget every stage prompt of the turn is fitted to (never throws)
 */
export function stagePromptBudget(model?: Pick<ChatModel, 'tokenizer' | 'capabilities'>, settings: StagePromptSettings = {}): StagePromptBudget {
  const tokenizer = model?.tokenizer ?? estimateTokenizer;
  const window = settings.contextTokens ?? validWindow(model?.capabilities?.contextTokens) ?? DEFAULT_STAGE_PROMPT.contextTokens;
  const response = Math.min(settings.responseTokens ?? DEFAULT_STAGE_PROMPT.responseTokens, Math.floor(window / 2));
  const promptTokens = window - response;
  const count = (text: string) => cachedCount(tokenizer, text);
  // A fitted stage prompt carries its count to the last check before the call (see
  // `fitStagePrompt`), so messages are counted once without remembering them per object.
  const countMessages = (messages: readonly ChatMessage[]) => {
    let total = REPLY_PRIMING_TOKENS;
    for (const message of messages) total += count(message.content) + MESSAGE_OVERHEAD_TOKENS;
    return total;
  };
  // A tokenizer that bounds its tokens per UTF-16 code unit (the kernel's estimate does).
  const perChar = tokenizer.maxTokensPerChar;
  const countMessagesAtMost =
    perChar === undefined
      ? countMessages
      : (messages: readonly ChatMessage[]) => {
          // One more token per message than the bound covers the float sum of 1.3s.
          let bound = REPLY_PRIMING_TOKENS;
          for (const message of messages) bound += Math.ceil(message.content.length * perChar) + 1 + MESSAGE_OVERHEAD_TOKENS;
          return bound <= promptTokens ? bound : countMessages(messages);
        };
  return {
    promptTokens,
    // Never more than a third of the prompt each, so the other blocks keep room.
    historyTokens: Math.min(settings.historyTokens ?? DEFAULT_STAGE_PROMPT.historyTokens, Math.floor(promptTokens / 3)),
    knowledgeTokens: Math.min(settings.knowledgeTokens ?? DEFAULT_STAGE_PROMPT.knowledgeTokens, Math.floor(promptTokens / 3)),
    recentTurns: settings.recentTurns ?? DEFAULT_STAGE_PROMPT.recentTurns,
    olderExcerpts: settings.olderExcerpts ?? DEFAULT_STAGE_PROMPT.olderExcerpts,
    tokenizer: tokenizer.id,
    count,
    countMessages,
    countMessagesAtMost,
  };
}

function validWindow(tokens: number | undefined): number | undefined {
  return tokens !== undefined && Number.isInteger(tokens) && tokens >= 256 ? tokens : undefined;
}

let defaultBudget: StagePromptBudget | undefined;

/** The budget with every default and the kernel's estimate tokenizer (for message builders called on their own). */
export function defaultStagePromptBudget(): StagePromptBudget {
  defaultBudget ??= stagePromptBudget();
  return defaultBudget;
}

// Budgets by model object: a handful of closures and a window computation, the same every turn
// (model and settings are fixed for the process in practice).
const budgets = new WeakMap<ChatModel, { readonly settings: StagePromptSettings | undefined; readonly tokenizer: unknown; readonly window: unknown; readonly budget: StagePromptBudget }>();

/**
 * {@link stagePromptBudget} of a pipeline model, remembered per model object and settings object:
 * the same budget for every turn (preActor and postReview each ask) until the model's tokenizer or
 * window changes.
 * @param model - the pipeline model
 * @param settings - the plugin's `stagePrompt` settings
 * @returns the budget (never throws)
 */
export function modelStageBudget(model: ChatModel, settings: StagePromptSettings | undefined): StagePromptBudget {
  const known = budgets.get(model);
  if (known && known.settings === settings && known.tokenizer === model.tokenizer && known.window === model.capabilities?.contextTokens) return known.budget;
  const budget = stagePromptBudget(model, settings);
  budgets.set(model, { settings, tokenizer: model.tokenizer, window: model.capabilities?.contextTokens, budget });
  return budget;
}
