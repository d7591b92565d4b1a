import type { ChatMessage, TurnTokenBudget } from '@troupe/kernel';
import type { HistoryFit } from './fit-history.js';

/** Event queued (ignorable) when the prompt was fitted to the token budget by leaving history out. */
export const CONTEXT_TRIMMED_EVENT = 'actor-assembler/context-trimmed';

/** Payload of {@link CONTEXT_TRIMMED_EVENT}. */
export interface ContextTrimmedData {
  /** The budget the prompt was fitted to. */
  readonly budget: { readonly contextTokens: number; readonly responseTokens: number; readonly promptTokens: number };
  /** Token counts: the fixed part, the whole prompt as sent; the counting method. */
  readonly tokens: { readonly fixed: number; readonly prompt: number; readonly tokenizer: string; readonly calibration: number };
  /** History: received from the kernel, kept, dropped (oldest first), and left unread by the kernel's bounded read. */
  readonly history: {
    readonly received: number;
    readonly kept: number;
    readonly dropped: number;
    readonly notRead: number;
    /** The dropped messages: `history[0 … dropped-1]` of what the kernel passed, with the first words of the oldest and newest. */
    readonly droppedRange?: {
      readonly from: number;
      readonly to: number;
      readonly oldest: { readonly role: string; readonly start: string };
      readonly newest: { readonly role: string; readonly start: string };
    };
  };
}

/**
 * The event data describing what the budget left out, or undefined when nothing was left out.
 * @param history - the history the assembler received
 * @param fit - what fitting decided
 * @param budget - the turn's budget
 */
export function contextTrimmedData(history: readonly ChatMessage[], fit: HistoryFit<unknown>, budget: TurnTokenBudget): ContextTrimmedData | undefined {
  if (fit.dropped === 0 && budget.omittedHistoryMessages === 0) return undefined;
  const oldest = history[0];
  const newest = history[fit.dropped - 1];
  return {
    budget: { contextTokens: budget.contextTokens, responseTokens: budget.responseTokens, promptTokens: budget.promptTokens },
    tokens: { fixed: fit.fixedTokens, prompt: fit.promptTokens, tokenizer: budget.tokenizer.id, calibration: budget.calibration },
    history: {
      received: history.length,
      kept: fit.kept,
      dropped: fit.dropped,
      notRead: budget.omittedHistoryMessages,
      ...(fit.dropped > 0 && oldest && newest ? { droppedRange: { from: 0, to: fit.dropped - 1, oldest: preview(oldest), newest: preview(newest) } } : {}),
    },
  };
}

function preview(message: ChatMessage): { role: string; start: string } {
  return { role: message.role, start: message.content.slice(0, 80) };
}
