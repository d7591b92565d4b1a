import { describe, expect, it } from 'vitest';
import { book, fired, run } from './helpers.js';

describe('recursive scanning', () => {
  const chain = [book([{ key: ['king'], content: 'The king lives in the castle.' }, { key: ['castle'], content: 'The castle has a dungeon.' }, { key: ['dungeon'], content: 'Rats.' }])];

  it('activated content is scanned for more keys, pass after pass', () => {
    const result = run({ books: chain, input: 'tell me of the king' });
    expect(result.entries.map((e) => [e.uid, e.recursion, e.pass])).toEqual(
      expect.arrayContaining([
        ['0', false, 1],
        ['1', true, 2],
        ['2', true, 3],
      ]),
    );
  });

  it('recursion off: only the chat', () => {
    expect(fired({ books: chain, input: 'the king', settings: { recursive: false } })).toEqual(['0']);
  });

  it('max recursion steps bounds the passes', () => {
    expect(fired({ books: chain, input: 'the king', settings: { maxRecursionSteps: 2 } }).sort()).toEqual(['0', '1']);
  });

  it('exclude from recursion: the entry can only be activated by the chat', () => {
    const books = [book([{ key: ['king'], content: 'The castle.' }, { key: ['castle'], content: 'c', excludeRecursion: true }])];
    expect(fired({ books, input: 'the king' })).toEqual(['0']);
    expect(fired({ books, input: 'the king in the castle' }).sort()).toEqual(['0', '1']);
  });

  it('prevent further recursion: its content activates nothing', () => {
    const books = [book([{ key: ['king'], content: 'The castle.', preventRecursion: true }, { key: ['castle'], content: 'c' }])];
    expect(fired({ books, input: 'the king' })).toEqual(['0']);
  });

  it('delay until recursion: never on the first pass, only from recursion', () => {
    const books = [book([{ key: ['king'], content: 'The castle.' }, { key: ['castle'], content: 'c', delayUntilRecursion: true }])];
    expect(fired({ books, input: 'the castle' })).toEqual([]);
    expect(fired({ books, input: 'the castle and the king' }).sort()).toEqual(['0', '1']);
  });

  // ST: level 1 is open from the start; recursion continues while level-1 passes find something
  // (pass 2 finds "alpha", pass 3 finds nothing new), and only then opens level 2 (pass 4).
  it('delay levels: level 2 waits until recursion at level 1 has run dry', () => {
    const books = [
      book([
        { key: ['start'], content: 'alpha beta' },
        { key: ['alpha'], content: 'one', delayUntilRecursion: 1 },
        { key: ['beta'], content: 'two', delayUntilRecursion: 2 },
      ]),
    ];
    const result = run({ books, input: 'start' });
    const pass = Object.fromEntries(result.entries.map((e) => [e.uid, e.pass]));
    expect(pass).toEqual({ '0': 1, '1': 2, '2': 4 });
  });

  it('an entry with scan depth 0 is not reached by recursion either (ST returns an empty buffer)', () => {
    const books = [book([{ key: ['king'], content: 'The castle.' }, { key: ['castle'], content: 'c', scanDepth: 0 }])];
    expect(fired({ books, input: 'the king' })).toEqual(['0']);
  });
});
