import { describe, expect, it } from 'vitest';
import { importCharacterBook, importWorldInfo } from '../src/index.js';
import { book, run } from './helpers.js';

// One token per character (content + the "\n" ST adds), for exact arithmetic.
const countTokens = (text: string) => text.length;

describe('ignore budget (ST ignoreBudget)', () => {
  it('is imported from world-info files (ignoreBudget) and cards (extensions.ignore_budget); default off', () => {
    const file = importWorldInfo({ entries: { '0': { key: ['a'], ignoreBudget: true }, '1': { key: ['b'] } } }).book;
    expect(file.entries.map((entry) => entry.ignoreBudget)).toEqual([true, false]);
    const card = importCharacterBook({ entries: [{ keys: ['a'], content: 'x', extensions: { ignore_budget: true } }, { keys: ['b'], content: 'y', extensions: {} }] }).book;
    expect(card.entries.map((entry) => entry.ignoreBudget)).toEqual([true, false]);
  });

  it('an activated entry with it is kept after the budget ran out; the others after the cut are still rejected', () => {
    const books = [
      book([
        { key: ['k'], order: 300, content: 'high' }, // 5 tokens
        { key: ['k'], order: 200, content: 'far-too-long-entry' }, // 19: exhausts the budget of 10
        { key: ['k'], order: 100, ignoreBudget: true, content: 'kept anyway' }, // 12, kept
        { key: ['k'], order: 50, content: 'x' }, // 2: never tried
      ]),
    ];
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 10 } });
    expect(result.entries.map((entry) => entry.uid).sort()).toEqual(['0', '2']);
    expect(result.rejected).toEqual([
      { id: 'world.1', reason: 'budget' },
      { id: 'world.3', reason: 'budget' },
    ]);
    // ST adds its content to the pass's text before the check of the next entry: it is counted.
    expect(result.budget).toEqual({ limit: 10, used: 17, exhausted: true });
  });

  it('still counts toward the budget, so entries after it can run out of room', () => {
    const books = [book([{ key: ['k'], order: 300, ignoreBudget: true, content: 'eight ch' }, { key: ['k'], order: 100, content: 'x' }])];
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 10 } });
    expect(result.entries.map((entry) => entry.uid)).toEqual(['0']);
    expect(result.rejected).toEqual([{ id: 'world.1', reason: 'budget' }]);
  });

  it('never exhausts the budget itself, even when it is larger than the whole budget', () => {
    const books = [book([{ key: ['k'], order: 300, ignoreBudget: true, content: 'a very long always-kept entry' }, { constant: true, order: 1, content: 'c' }])];
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 10 } });
    // The constant entry is budgeted first (a Troupe difference) and fits; the long one is kept.
    expect(result.entries.map((entry) => entry.uid).sort()).toEqual(['0', '1']);
    expect(result.budget.exhausted).toBe(false);
  });
});
