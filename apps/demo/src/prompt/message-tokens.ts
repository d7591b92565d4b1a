import { type CommittedTurnRecord, estimateTokenizer, type ModelRegistry, type Tokenizer } from '@troupe/kernel';
import type { MessageTokens } from '../wire/prompt.js';

/**
 * The tokenizer that counts for the chat's actor model right now: its own (`o200k_base`, …) when
 * it has one, else the kernel's estimate — the same choice the turn budget makes.
 * @param models - the demo's models
 * @returns the tokenizer
 */
export function actorTokenizer(models: ModelRegistry): Tokenizer {
  try {
    return models.resolve().tokenizer ?? estimateTokenizer;
  } catch {
    return estimateTokenizer;
  }
}

/**
 * Token counts of every visible exchange (SillyTavern shows one per message): the text alone,
 * without the chat template's framing.
 * @param turns - the visible turns (`foldCommittedTurns`)
 * @param tokenizer - from {@link actorTokenizer}
 * @returns one row per turn, in order
 */
export function messageTokens(turns: Iterable<CommittedTurnRecord>, tokenizer: Tokenizer): MessageTokens[] {
  return [...turns].map((turn) => ({ turnId: turn.turnId, step: turn.step, input: tokenizer.count(turn.input), reply: tokenizer.count(turn.reply) }));
}
