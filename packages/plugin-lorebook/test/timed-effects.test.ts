import { describe, expect, it } from 'vitest';
import type { ScanMessage, WorldInfoState } from '../src/index.js';
import { book, run } from './helpers.js';

// ST measures timed effects in chat messages (chat.length, the new user message included).
function chat(length: number): ScanMessage[] {
  return Array.from({ length }, (_, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: `message ${index}` }));
}

describe('timed effects', () => {
  it('sticky: stays active for N messages after it fired, without its key', () => {
    const books = [book([{ key: ['storm'], sticky: 3, content: 'storm lore' }])];
    const first = run({ books, messages: chat(1), input: 'a storm' }); // chat length 2
    expect(first.entries.map((e) => e.reason)).toEqual(['key']);
    expect(first.state.sticky['world.0']).toEqual({ start: 2, end: 5, protected: false });
    const second = run({ books, messages: chat(3), input: 'calm', state: first.state }); // length 4
    expect(second.entries.map((e) => e.reason)).toEqual(['sticky']);
    const third = run({ books, messages: chat(5), input: 'calm', state: second.state }); // length 6 ≥ 5
    expect(third.entries).toEqual([]);
    expect(third.state.sticky).toEqual({});
  });

  it('cooldown: cannot fire again for N messages', () => {
    const books = [book([{ key: ['storm'], cooldown: 4, content: 'storm lore' }])];
    const first = run({ books, messages: chat(1), input: 'storm' }); // length 2, cooldown until 6
    expect(first.entries).toHaveLength(1);
    const second = run({ books, messages: chat(3), input: 'storm', state: first.state }); // 4 < 6
    expect(second.entries).toEqual([]);
    const third = run({ books, messages: chat(5), input: 'storm', state: second.state }); // 6
    expect(third.entries).toHaveLength(1);
  });

  it('sticky then cooldown: when the sticky ends the cooldown starts (protected)', () => {
    const books = [book([{ key: ['storm'], sticky: 2, cooldown: 2, content: 'x' }])];
    const first = run({ books, messages: chat(1), input: 'storm' }); // 2: sticky to 4, cooldown to 4
    const second = run({ books, messages: chat(3), input: 'storm', state: first.state }); // 4: sticky ends → cooldown 4..6
    expect(second.entries).toEqual([]);
    expect(second.state.cooldown['world.0']).toEqual({ start: 4, end: 6, protected: true });
    const third = run({ books, messages: chat(5), input: 'storm', state: second.state }); // 6
    expect(third.entries).toHaveLength(1);
  });

  it('delay: cannot fire before the chat has N messages', () => {
    const books = [book([{ key: ['storm'], delay: 5, content: 'x' }])];
    expect(run({ books, messages: chat(3), input: 'storm' }).entries).toEqual([]);
    expect(run({ books, messages: chat(4), input: 'storm' }).entries).toHaveLength(1);
  });

  it('a regenerated reply (chat did not advance) drops unprotected effects, so the roll is redone', () => {
    const books = [book([{ key: ['storm'], sticky: 5, content: 'x' }])];
    const first = run({ books, messages: chat(1), input: 'storm' });
    const again = run({ books, messages: chat(1), input: 'calm', state: first.state });
    expect(again.entries).toEqual([]);
  });

  it('sticky entries skip the probability roll and win their group', () => {
    const books = [book([{ key: ['storm'], sticky: 4, probability: 100, group: 'g', content: 'sticky' }, { key: ['storm', 'calm'], group: 'g', groupOverride: true, content: 'rival' }])];
    const state: WorldInfoState = { sticky: { 'world.0': { start: 2, end: 6, protected: false } }, cooldown: {} };
    const result = run({ books, messages: chat(3), input: 'calm', state });
    expect(result.entries.map((e) => [e.uid, e.reason])).toEqual([['0', 'sticky']]);
    expect(result.rejected).toEqual([{ id: 'world.1', reason: 'group-sticky' }]);
  });

  it('malformed stored effects are dropped, the rest kept; the input state is not changed', () => {
    const books = [book([{ key: ['storm'], sticky: 9, content: 'x' }])];
    const state = { sticky: { 'world.0': { start: 2, end: 11, protected: false }, broken: 'nope' }, cooldown: { x: null } } as unknown as WorldInfoState;
    const frozen = JSON.stringify(state);
    const result = run({ books, messages: chat(3), input: 'calm', state });
    expect(result.entries.map((e) => e.reason)).toEqual(['sticky']);
    expect(JSON.stringify(state)).toBe(frozen);
  });

  it('effects of entries from books not attached this turn are kept until they run out', () => {
    const books = [book([{ key: ['x'], content: 'x' }])];
    const state: WorldInfoState = { sticky: { 'other.3': { start: 2, end: 8, protected: false } }, cooldown: {} };
    expect(run({ books, messages: chat(3), input: '', state }).state.sticky).toEqual(state.sticky);
    expect(run({ books, messages: chat(9), input: '', state }).state.sticky).toEqual({});
  });
});
