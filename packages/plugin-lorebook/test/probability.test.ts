import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/index.js';
import { book, fired, run } from './helpers.js';

describe('probability', () => {
  const books = [book(Array.from({ length: 40 }, (_, index) => ({ key: ['k'], probability: 50, content: `e${index}` })))];

  it('is seeded: the same seed gives the same entries, another seed others', () => {
    const a = fired({ books, input: 'k', seed: 'chat-1:4' });
    expect(fired({ books, input: 'k', seed: 'chat-1:4' })).toEqual(a);
    expect(fired({ books, input: 'k', seed: 'chat-1:6' })).not.toEqual(a);
    // About half of 40 pass a 50 % roll.
    expect(a.length).toBeGreaterThan(8);
    expect(a.length).toBeLessThan(32);
  });

  it('100 % or useProbability off always passes; 0 % never (in practice)', () => {
    const sure = [book([{ key: ['k'], probability: 100, content: 'a' }, { key: ['k'], probability: 1, useProbability: false, content: 'b' }, { key: ['k'], probability: 0, content: 'c' }])];
    for (const seed of [1, 2, 3, 4, 5]) expect(fired({ books: sure, input: 'k', seed }).sort()).toEqual(['0', '1']);
  });

  it('a failed roll is reported and not retried in a recursive pass', () => {
    const chain = [book([{ key: ['k'], content: 'apple' }, { key: ['apple', 'k'], probability: 0, content: 'x' }])];
    const result = run({ books: chain, input: 'k' });
    expect(result.entries.map((e) => e.uid)).toEqual(['0']);
    expect(result.rejected).toEqual([{ id: 'world.1', reason: 'probability' }]);
  });

  it('seededRandom is uniform enough for weights', () => {
    const random = seededRandom('x');
    const values = Array.from({ length: 10_000 }, random);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
  });
});
