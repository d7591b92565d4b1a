import { type TurnContext, contextKeys } from '@troupe/kernel';

/**
 * SillyTavern's generation types, which an entry's `triggers` may name (ST `GENERATION_TYPE_TRIGGERS`):
 * `normal`, `continue`, `impersonate`, `swipe`, `regenerate`, `quiet`.
 */
export const GENERATION_TRIGGERS = Object.freeze(['normal', 'continue', 'impersonate', 'swipe', 'regenerate', 'quiet'] as const);

/** One of {@link GENERATION_TRIGGERS}: what kind of generation an activation is for. */
export type GenerationTrigger = (typeof GENERATION_TRIGGERS)[number];

/**
 * The generation type of a kernel turn, in SillyTavern's terms: a `continue` turn (the kernel set
 * `contextKeys.continuation`) is `continue`; another step of a turn (`step > 0`, a regenerated
 * reply) is `swipe`, because Troupe keeps the earlier steps as ST keeps a message's swipes (ST's
 * `regenerate` deletes the reply first, which Troupe never does); anything else is `normal`.
 * Troupe has no `impersonate` or `quiet` turns.
 * @param turn - the turn
 * @returns the generation type
 */
export function turnTrigger(turn: Pick<TurnContext, 'step' | 'has'>): GenerationTrigger {
  if (turn.has(contextKeys.continuation)) return 'continue';
  return turn.step > 0 ? 'swipe' : 'normal';
}
