import { describe, expect, it } from 'vitest';
import type { NewSessionEvent, ReadEventsOptions, ReadTypedOptions, SessionEvent, TypedEvents } from '../src/index.js';
import { MemorySessionLog } from '../src/testing/index.js';
import { HistoryCache } from '../src/turn/history-cache.js';
import { foldCommittedTurns, messagesFromTurns } from '../src/turn/session-history.js';

/** A memory log that counts the events it hands out (what a store would read and parse). */
class CountingLog extends MemorySessionLog {
  eventsRead = 0;
  override async read(sessionId: string, options?: ReadEventsOptions): Promise<readonly SessionEvent[]> {
    const events = await super.read(sessionId, options);
    this.eventsRead += events.length;
    return events;
  }
  override async readTyped(sessionId: string, options: ReadTypedOptions): Promise<TypedEvents> {
    const result = await super.readTyped(sessionId, options);
    this.eventsRead += result.events.length;
    return result;
  }
}

const at = '2026-01-01T00:00:00.000Z';
const commit = (turn: number, step = 0, reply = `reply ${turn}.${step}`): NewSessionEvent => ({ turnId: `t${turn}`, step, type: 'kernel/turn-committed', ignorable: false, at, key: 'turn', data: { input: `input ${turn}`, reply } });
const noise = (turn: number): NewSessionEvent => ({ turnId: `t${turn}`, step: 0, type: 'agent-rp/story-stage-request', ignorable: true, at, data: { messages: [{ role: 'user', content: 'prompt '.repeat(50) }] } });
const control = (type: string, turn: number, step: number, data: unknown): NewSessionEvent => ({ turnId: `t${turn}`, step, type, ignorable: false, at, data });

async function longSession(log: MemorySessionLog, turns: number): Promise<void> {
  const batch: NewSessionEvent[] = [];
  for (let turn = 1; turn <= turns; turn++) batch.push(noise(turn), noise(turn), commit(turn));
  await log.append('long', batch);
}

// What the whole log folds to: the reference every bounded read must equal.
async function expected(log: MemorySessionLog, current: string, maxTurns: number) {
  const all = [...foldCommittedTurns(await log.read('long')).values()].filter((turn) => turn.turnId !== current);
  return messagesFromTurns(all.slice(Math.max(0, all.length - maxTurns)), current);
}

describe('bounded history read after process start', () => {
  it('a fresh cache on a 10 000-turn session reads about the turns it returns, not the session', async () => {
    const log = new CountingLog();
    await longSession(log, 10_000);
    // Recent chat controls inside the window: a regeneration, a swipe back, an edit.
    await log.append('long', [commit(9990, 1), control('kernel/step-selected', 9990, 0, { step: 0 }), control('kernel/turn-edited', 9995, 0, { reply: 'EDITED' })]);
    log.eventsRead = 0;
    const cache = new HistoryCache(log);
    const { messages, omitted } = await cache.history('long', 'next', 1000);
    expect(log.eventsRead).toBeLessThanOrEqual(1000 + 16 + 3);
    expect(messages).toEqual(await expected(log, 'next', 1000));
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'reply 10000.0' });
    expect(messages.find((m) => m.content === 'EDITED')).toBeDefined();
    expect(omitted).toBeGreaterThanOrEqual(2 * 9000);
    // The next turn reads only what was appended since (no prompt-carrying event).
    await log.append('long', [noise(10_001), noise(10_001), commit(10_001)]);
    log.eventsRead = 0;
    const next = await cache.history('long', 'next2', 1000);
    expect(log.eventsRead).toBe(1);
    expect(next.messages.at(-1)).toEqual({ role: 'assistant', content: 'reply 10001.0' });
  });

  it('reads further back when a recent event belongs to an older turn, and after an old turn is removed', async () => {
    const log = new CountingLog();
    await longSession(log, 3000);
    // An old turn regenerated at the end: its first commit lies far before the window.
    await log.append('long', [commit(5, 1, 'OLD TURN REGENERATED')]);
    const cold = new HistoryCache(log);
    expect((await cold.history('long', 'next', 100)).messages).toEqual(await expected(log, 'next', 100));
    // An old turn removed later: every turn from it on leaves the history.
    const warm = new HistoryCache(log);
    await warm.history('long', 'next', 100);
    await log.append('long', [control('kernel/turns-removed', 50, 0, { fromTurnId: 't50' }), commit(3001)]);
    const after = await warm.history('long', 'next', 100);
    expect(after.messages).toEqual(await expected(log, 'next', 100));
    expect(after.messages.map((m) => m.content)).toContain('input 49');
    expect(after.messages.map((m) => m.content)).not.toContain('input 2999');
    // The full list of turns (chat controls) still comes from the whole session.
    expect([...(await warm.turns('long')).keys()].length).toBe(50);
  });
});

describe('the kept conversation after appends and chat controls', () => {
  // Every kind of change the fold knows, in a seeded order: each read must equal a fold of the
  // whole log, whether the current turn is new, the latest (regenerated) or an older one.
  it('equals a fold of the whole log after appends, regenerations, swipes, edits and removals', async () => {
    const log = new MemorySessionLog();
    const cache = new HistoryCache(log);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    let next = 1;
    const live: number[] = [];
    for (let round = 0; round < 200; round++) {
      const pick = random(10);
      const turn = live.length > 0 ? live[random(live.length)]! : 0;
      if (pick < 6 || live.length === 0) {
        const batch = random(3) === 0 ? [commit(next), commit(next + 1)] : [commit(next)];
        await log.append('long', batch);
        for (let i = 0; i < batch.length; i++) live.push(next++);
      } else if (pick === 6) await log.append('long', [commit(turn, 1 + random(2), `regenerated ${round}`)]);
      else if (pick === 7) await log.append('long', [control('kernel/step-selected', turn, 0, { step: 0 })]);
      else if (pick === 8) await log.append('long', [control('kernel/turn-edited', turn, 0, { reply: `edited ${round}` })]);
      else if (random(4) === 0) {
        await log.append('long', [control('kernel/turns-removed', turn, 0, { fromTurnId: `t${turn}` })]);
        live.splice(live.indexOf(turn));
      }
      const latest = live.at(-1);
      const older = live[random(Math.max(1, live.length))];
      const whole = [...foldCommittedTurns(await log.read('long')).values()];
      for (const current of ['next', latest === undefined ? 'none' : `t${latest}`, older === undefined ? 'none' : `t${older}`]) {
        const others = whole.filter((turn) => turn.turnId !== current);
        for (const maxTurns of [Number.POSITIVE_INFINITY, 5]) {
          const { messages } = await cache.history('long', current, maxTurns);
          expect(messages).toEqual(messagesFromTurns(others.slice(Math.max(0, others.length - maxTurns)), current));
        }
      }
    }
    expect(live.length).toBeGreaterThan(20);
  });

  it('hands out messages no reader can change for another', async () => {
    const log = new MemorySessionLog();
    await longSession(log, 3);
    const cache = new HistoryCache(log);
    const { messages } = await cache.history('long', 'next');
    expect(() => {
      (messages[0] as { content: string }).content = 'changed';
    }).toThrow(TypeError);
    expect((await cache.history('long', 'next')).messages[0]).toEqual({ role: 'user', content: 'input 1' });
  });
});
