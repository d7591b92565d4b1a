import { describe, expect, it } from 'vitest';
import { book, fired, run } from './helpers.js';

describe('inclusion groups', () => {
  it('at most one matching entry per group is inserted; the losers are reported', () => {
    const books = [book([{ key: ['k'], group: 'weather', content: 'rain' }, { key: ['k'], group: 'weather', content: 'sun' }, { key: ['k'], content: 'free' }])];
    const result = run({ books, input: 'k', seed: 7 });
    expect(result.entries.filter((e) => e.uid !== '2')).toHaveLength(1);
    expect(result.entries.some((e) => e.uid === '2')).toBe(true);
    expect(result.rejected.map((r) => r.reason)).toEqual(['group-draw']);
  });

  it('weights decide the draw (seeded, so reproducible): 900 vs 100 wins about 90 %', () => {
    const books = [book([{ key: ['k'], group: 'g', groupWeight: 900, content: 'heavy' }, { key: ['k'], group: 'g', groupWeight: 100, content: 'light' }])];
    let heavy = 0;
    for (let seed = 0; seed < 400; seed++) if (fired({ books, input: 'k', seed })[0] === '0') heavy++;
    expect(heavy).toBeGreaterThan(320);
    expect(heavy).toBeLessThan(390);
    expect(fired({ books, input: 'k', seed: 11 })).toEqual(fired({ books, input: 'k', seed: 11 }));
  });

  it('a prioritised entry (groupOverride) wins; among several, the highest order', () => {
    const books = [
      book([
        { key: ['k'], group: 'g', groupWeight: 1000, content: 'weighted' },
        { key: ['k'], group: 'g', groupOverride: true, order: 10, content: 'prio low' },
        { key: ['k'], group: 'g', groupOverride: true, order: 50, content: 'prio high' },
      ]),
    ];
    for (const seed of [1, 2, 3]) expect(fired({ books, input: 'k', seed })).toEqual(['2']);
  });

  it('an entry in several groups (comma separated) competes in each', () => {
    const books = [book([{ key: ['k'], group: 'a, b', groupOverride: true, content: 'both' }, { key: ['k'], group: 'a', content: 'only a' }, { key: ['k'], group: 'b', content: 'only b' }])];
    expect(fired({ books, input: 'k' })).toEqual(['0']);
  });

  it('group scoring keeps only the members with the most matching keys', () => {
    const books = [book([{ key: ['castle', 'king'], group: 'g', content: 'two keys' }, { key: ['castle'], group: 'g', groupWeight: 100000, content: 'one key' }])];
    expect(fired({ books, input: 'the king in the castle', settings: { useGroupScoring: true } })).toEqual(['0']);
    // Per entry: only the entry that opts in is removed as a score loser.
    const perEntry = [book([{ key: ['castle', 'king'], group: 'g', content: 'two' }, { key: ['castle'], group: 'g', useGroupScoring: true, groupWeight: 100000, content: 'one' }])];
    expect(fired({ books: perEntry, input: 'the king in the castle' })).toEqual(['0']);
  });

  it('a group already filled in an earlier pass admits no member from a recursive pass', () => {
    const books = [book([{ key: ['k'], group: 'g', content: 'apple' }, { key: ['apple'], group: 'g', content: 'second' }])];
    const result = run({ books, input: 'k' });
    expect(result.entries.map((e) => e.uid)).toEqual(['0']);
    expect(result.rejected).toEqual([{ id: 'world.1', reason: 'group-already-active' }]);
  });
});
