import type { ChatMessage, TurnTokenBudget } from '@troupe/kernel';
import { AssemblerError } from '../errors.js';

/** What {@link fitHistoryToBudget} decided. */
export interface HistoryFit<R> {
  /** The assembly with the history that fits. */
  readonly result: R;
  /** History messages kept (the newest ones). */
  readonly kept: number;
  /** History messages dropped (the oldest ones). */
  readonly dropped: number;
  /** Tokens of everything but the history: preset prompts, DIO slot, story draft, world info, input. */
  readonly fixedTokens: number;
  /** Tokens of the whole prompt as sent. */
  readonly promptTokens: number;
}

/**
 * Fits the history into the token budget, dropping the oldest messages first. Everything else
 * the assembly places — the preset's fixed prompts, the DIO slot, the story draft, world info and
 * the current input — is never dropped: it is measured by assembling without any history, and
 * the history gets what is left. The assembly is then made with the newest messages that fit and
 * measured again (macros such as `{{lastMessage}}` read the history), dropping one more while it
 * is still too long.
 * @param history - the earlier messages, oldest first
 * @param assembleWith - assembles the prompt with a given history
 * @param messagesOf - the messages of an assembly
 * @param budget - the turn's budget (`contextKeys.tokenBudget`)
 * @returns the assembly that fits and what was dropped
 * @throws {AssemblerError} BUDGET_PROMPT_TOO_LONG when the prompt does not fit even without history
 */
export function fitHistoryToBudget<R>(
  history: readonly ChatMessage[],
  assembleWith: (history: readonly ChatMessage[]) => R,
  messagesOf: (result: R) => readonly ChatMessage[],
  budget: TurnTokenBudget,
): HistoryFit<R> {
  const fixed = messagesOf(assembleWith([]));
  const fixedTokens = budget.countMessages(fixed);
  if (fixedTokens > budget.promptTokens) throw tooLong(fixed, fixedTokens, budget);
  // Newest first: how many of the latest messages fit in what the fixed part leaves.
  const room = budget.promptTokens - fixedTokens;
  let used = 0;
  let kept = 0;
  for (let index = history.length - 1; index >= 0; index--) {
    const cost = budget.countMessage(history[index]!);
    if (used + cost > room) break;
    used += cost;
    kept++;
  }
  for (;;) {
    const result = kept === 0 ? assembleWith([]) : assembleWith(history.slice(history.length - kept));
    const promptTokens = budget.countMessages(messagesOf(result));
    if (promptTokens <= budget.promptTokens || kept === 0) {
      if (promptTokens > budget.promptTokens) throw tooLong(messagesOf(result), promptTokens, budget);
      return { result, kept, dropped: history.length - kept, fixedTokens, promptTokens };
    }
    kept--;
  }
}

function tooLong(messages: readonly ChatMessage[], tokens: number, budget: TurnTokenBudget): AssemblerError {
  const largest = messages
    .map((message, index) => ({ index, role: message.role, tokens: budget.countMessage(message), start: message.content.slice(0, 60) }))
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, 3);
  const parts = largest.map((part) => `#${part.index} ${part.role} ≈${part.tokens} tokens ("${part.start}${part.start.length === 60 ? '…' : ''}")`).join('; ');
  return new AssemblerError(
    'BUDGET_PROMPT_TOO_LONG',
    `The prompt needs ≈${tokens} tokens without any history, more than the ${budget.promptTokens} the budget leaves (context ${budget.contextTokens} − response ${budget.responseTokens}). ` +
      `Raise the context size, shorten the preset, character, story draft or input. Largest parts: ${parts}`,
    { details: { promptTokens: tokens, budgetTokens: budget.promptTokens, contextTokens: budget.contextTokens, responseTokens: budget.responseTokens, largest } },
  );
}
