import * as z from 'zod';
import type { WorldInfoEntry } from './entry.js';

/** One running sticky or cooldown effect, in chat-length units (messages). */
export interface TimedEffect {
  /** Chat length when it started. */
  readonly start: number;
  /** Chat length at which it ends. */
  readonly end: number;
  /** Survives a scan at the same chat length (set when a sticky ends into its cooldown). */
  readonly protected: boolean;
}

/**
 * Per-chat world-info state (ST `chat_metadata.timedWorldInfo`): running sticky and cooldown
 * effects by entry id (`<book>.<uid>`). The plugin keeps it in the session log.
 */
export interface WorldInfoState {
  readonly sticky: Readonly<Record<string, TimedEffect>>;
  readonly cooldown: Readonly<Record<string, TimedEffect>>;
}

/** An empty state. */
export const EMPTY_STATE: WorldInfoState = Object.freeze({ sticky: Object.freeze({}), cooldown: Object.freeze({}) });

const effect = z.object({ start: z.number().finite(), end: z.number().finite(), protected: z.boolean().default(false) });
const effects = z.record(z.string(), z.unknown()).transform((record) => {
  // Lenient like ST's ensureChatMetadata: malformed effects are dropped, the rest kept.
  const kept: Record<string, TimedEffect> = {};
  for (const [key, value] of Object.entries(record)) {
    const parsed = effect.safeParse(value);
    if (parsed.success) kept[key] = parsed.data;
  }
  return kept;
});

/** Schema of a stored {@link WorldInfoState}. */
export const WorldInfoStateSchema = z.object({ sticky: effects.default({}), cooldown: effects.default({}) });

type EffectType = 'sticky' | 'cooldown';

/** Timed effects as one scan sees them (ST's WorldInfoTimedEffects), over a copy of the state. */
export class TimedEffects {
  readonly #chatLength: number;
  readonly #state: { sticky: Record<string, TimedEffect>; cooldown: Record<string, TimedEffect> };
  readonly #active = { sticky: new Set<string>(), cooldown: new Set<string>(), delay: new Set<string>() };

  /**
   * Checks every stored effect against the chat length: effects that did not see the chat advance
   * (a regenerated reply) are dropped unless protected, finished stickies start their cooldown,
   * and delays hold while the chat is shorter than the entry's `delay`.
   * @param state - the stored state (not mutated)
   * @param chatLength - messages in the chat, counting the current input
   * @param entries - every entry of this scan by id
   */
  constructor(state: WorldInfoState, chatLength: number, entries: ReadonlyMap<string, WorldInfoEntry>) {
    this.#chatLength = chatLength;
    this.#state = { sticky: { ...state.sticky }, cooldown: { ...state.cooldown } };
    this.#check('sticky', entries);
    this.#check('cooldown', entries);
    for (const [id, entry] of entries) if (entry.delay > 0 && chatLength < entry.delay) this.#active.delay.add(id);
  }

  #check(type: EffectType, entries: ReadonlyMap<string, WorldInfoEntry>): void {
    const stored = this.#state[type];
    for (const [id, value] of Object.entries(stored)) {
      if (this.#chatLength <= value.start && !value.protected) {
        delete stored[id];
        continue;
      }
      const entry = entries.get(id);
      // Missing entries may belong to a book not attached this turn: keep them until they run out.
      if (!entry) {
        if (this.#chatLength >= value.end) delete stored[id];
        continue;
      }
      if (entry[type] <= 0) {
        delete stored[id];
        continue;
      }
      if (this.#chatLength >= value.end) {
        delete stored[id];
        // A sticky that ends puts its entry on cooldown right away (protected: it starts now).
        if (type === 'sticky' && entry.cooldown > 0) {
          this.#state.cooldown[id] = { start: this.#chatLength, end: this.#chatLength + entry.cooldown, protected: true };
        }
        continue;
      }
      this.#active[type].add(id);
    }
  }

  /**
   * Whether an effect holds for an entry in this scan.
   * @param type - sticky, cooldown or delay
   * @param id - the entry's id
   */
  isActive(type: EffectType | 'delay', id: string): boolean {
    return this.#active[type].has(id);
  }

  /**
   * Starts sticky and cooldown effects for the entries that activated (an effect already running
   * is left as it is) and returns the new state.
   * @param activated - the activated entries by id
   * @returns the state to store for the next turn
   */
  finish(activated: ReadonlyMap<string, WorldInfoEntry>): WorldInfoState {
    for (const [id, entry] of activated) {
      for (const type of ['sticky', 'cooldown'] as const) {
        if (entry[type] > 0 && this.#state[type][id] === undefined) {
          this.#state[type][id] = { start: this.#chatLength, end: this.#chatLength + entry[type], protected: false };
        }
      }
    }
    return { sticky: { ...this.#state.sticky }, cooldown: { ...this.#state.cooldown } };
  }
}
