import { describe, expect, it } from 'vitest';
import { worldInfoBudget, WorldInfoSettingsSchema } from '../src/index.js';
import { book, fired, run } from './helpers.js';

// Token counter for exact arithmetic: one token per character (content + the "\n" ST adds).
const countTokens = (text: string) => text.length;

describe('token budget', () => {
  it('percent of the context (ST default 25 %), an absolute budget, and the cap', () => {
    expect(worldInfoBudget(WorldInfoSettingsSchema.parse({}))).toBe(2048);
    expect(worldInfoBudget(WorldInfoSettingsSchema.parse({ contextSize: 1000, budgetPercent: 10 }))).toBe(100);
    expect(worldInfoBudget(WorldInfoSettingsSchema.parse({ budgetTokens: 300 }))).toBe(300);
    expect(worldInfoBudget(WorldInfoSettingsSchema.parse({ contextSize: 1000, budgetPercent: 50, budgetCap: 200 }))).toBe(200);
    expect(worldInfoBudget(WorldInfoSettingsSchema.parse({ contextSize: 10, budgetPercent: 1 }))).toBe(1);
  });

  it('higher order wins the budget; the first entry that reaches it stops the rest (ST)', () => {
    const books = [
      book([
        { key: ['k'], order: 10, content: 'low-low-low' }, // 12 tokens
        { key: ['k'], order: 300, content: 'high' }, // 5
        { key: ['k'], order: 200, content: 'middle-one' }, // 11
      ]),
    ];
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 20 } });
    expect(result.entries.map((e) => e.uid).sort()).toEqual(['1', '2']);
    expect(result.budget).toEqual({ limit: 20, used: 16, exhausted: true });
    expect(result.rejected).toEqual([{ id: 'world.0', reason: 'budget' }]);
  });

  it('entries the budget cut off without trying are rejected too (reason budget), later passes included', () => {
    // Once the budget is exhausted ST tries nothing more; those entries still matched and lost.
    const books = [
      book([
        { key: ['k'], order: 300, content: 'high' }, // 5 tokens
        { key: ['k'], order: 200, content: 'far-too-long-entry' }, // 19: exhausts the budget of 10
        { key: ['k'], order: 100, content: 'x' }, // 2: never tried
        // ST still scans open delay levels after the budget ran out (level 1 is the first recursion,
        // which an exhausted budget prevents; level 2 comes after it): a later pass.
        { key: ['x'], order: 50, delayUntilRecursion: 2, content: 'delayed' },
        { key: ['nowhere'], order: 40, delayUntilRecursion: 1, content: 'level one' },
      ]),
    ];
    const result = run({ books, input: 'k x', countTokens, settings: { budgetTokens: 10 } });
    expect(result.entries.map((e) => e.uid)).toEqual(['0']);
    expect(result.rejected).toEqual([
      { id: 'world.1', reason: 'budget' },
      { id: 'world.2', reason: 'budget' },
      { id: 'world.3', reason: 'budget' },
    ]);
  });

  it('constant entries are budgeted before keyed ones of higher order', () => {
    const books = [book([{ key: ['k'], order: 900, content: 'keyed entry' }, { constant: true, order: 1, content: 'the constant' }])];
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 15 } });
    expect(result.entries.map((e) => e.uid)).toEqual(['1']);
  });

  it('reaching the budget exactly counts as over (ST: tokens >= budget)', () => {
    const books = [book([{ key: ['k'], content: 'abcd' }])];
    expect(fired({ books, input: 'k', countTokens, settings: { budgetTokens: 5 } })).toEqual([]);
    expect(fired({ books, input: 'k', countTokens, settings: { budgetTokens: 6 } })).toEqual(['0']);
  });
});

describe('insertion order and positions', () => {
  it('within a position: ascending order; equal orders in reverse scan order (ST prepends)', () => {
    const books = [
      book([
        { key: ['k'], order: 100, content: 'a' },
        { key: ['k'], order: 100, content: 'b' },
        { key: ['k'], order: 5, content: 'c' },
        { key: ['k'], order: 500, content: 'd' },
      ]),
    ];
    expect(fired({ books, input: 'k' })).toEqual(['2', '1', '0', '3']);
  });

  it('equal orders: keyed and constant entries are placed by scan order like any others (the budget priority does not reorder them)', () => {
    // ST sorts a pass's entries by sticky, then scan order (not constant first), then places them
    // by descending order, prepending: the later-scanned of two equal orders comes first.
    const books = [book([{ key: ['forest'], content: 'A keyed' }, { key: [], constant: true, content: 'B constant' }, { key: ['forest'], content: 'C keyed' }])];
    const result = run({ books, input: 'into the forest' });
    expect(result.byPosition.before.map((entry) => entry.content)).toEqual(['C keyed', 'B constant', 'A keyed']);
  });

  it('a sticky entry counts as activated first in its pass, so it is placed last among equal orders', () => {
    const books = [book([{ key: ['forest'], content: 'A keyed' }, { key: ['cave'], content: 'B sticky', sticky: 3 }])];
    const first = run({ books, input: 'cave' });
    const second = run({ books, input: 'forest', messages: [{ role: 'user', content: 'cave' }, { role: 'assistant', content: 'ok' }], state: first.state, settings: { scanDepth: 1 } });
    expect(second.entries.map((entry) => `${entry.content}:${entry.reason}`)).toEqual(['A keyed:key', 'B sticky:sticky']);
  });

  it('each ST position number maps to its place; atDepth keeps depth and role', () => {
    const books = [
      book([
        { key: ['k'], position: 0, content: 'before' },
        { key: ['k'], position: 1, content: 'after' },
        { key: ['k'], position: 2, content: 'an top' },
        { key: ['k'], position: 3, content: 'an bottom' },
        { key: ['k'], position: 4, depth: 2, role: 1, content: 'at depth' },
        { key: ['k'], position: 5, content: 'em top' },
        { key: ['k'], position: 6, content: 'em bottom' },
      ]),
    ];
    const { byPosition } = run({ books, input: 'k' });
    expect(byPosition.before.map((e) => e.content)).toEqual(['before']);
    expect(byPosition.after.map((e) => e.content)).toEqual(['after']);
    expect(byPosition.authorsNoteTop.map((e) => e.content)).toEqual(['an top']);
    expect(byPosition.authorsNoteBottom.map((e) => e.content)).toEqual(['an bottom']);
    expect(byPosition.examplesTop.map((e) => e.content)).toEqual(['em top']);
    expect(byPosition.examplesBottom.map((e) => e.content)).toEqual(['em bottom']);
    expect(byPosition.atDepth.map((e) => [e.content, e.depth, e.role])).toEqual([['at depth', 2, 'user']]);
  });

  it('chat books come first in the scan, then character books, then global (character first)', () => {
    const books = [
      book([{ key: ['k'], order: 999, content: 'global' }], 'g', 'global'),
      book([{ key: ['k'], order: 1, content: 'char' }], 'c', 'character'),
      book([{ key: ['k'], order: 1, content: 'chat' }], 'h', 'chat'),
    ];
    // Budget room for two entries: the scan order decides who gets in.
    const result = run({ books, input: 'k', countTokens, settings: { budgetTokens: 12 } });
    expect(result.entries.map((e) => e.content).sort()).toEqual(['char', 'chat']);
    const globalFirst = run({ books, input: 'k', countTokens, settings: { budgetTokens: 13, insertionStrategy: 'globalFirst' } });
    expect(globalFirst.entries.map((e) => e.content).sort()).toEqual(['chat', 'global']);
  });
});
