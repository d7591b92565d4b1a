import { describe, expect, it } from 'vitest';
import { book, fired } from './helpers.js';

const messages = [
  { role: 'user' as const, content: 'the old castle' },
  { role: 'assistant' as const, content: 'the misty harbour' },
  { role: 'user' as const, content: 'the quiet forest' },
  { role: 'assistant' as const, content: 'the bright meadow' },
];
const books = [book([{ key: ['castle'], content: 'a' }, { key: ['harbour'], content: 'b' }, { key: ['forest'], content: 'c' }, { key: ['meadow'], content: 'd' }, { key: ['tower'], content: 'e' }])];

// ST scans the newest `depth` messages, the user's new message being the newest (depth 0 slot).
describe('scan depth', () => {
  it('default depth 2 = the input and the last message', () => {
    expect(fired({ books, messages, input: 'to the tower' }).sort()).toEqual(['3', '4']);
  });

  it('a larger global depth reaches further back', () => {
    expect(fired({ books, messages, input: 'to the tower', settings: { scanDepth: 4 } }).sort()).toEqual(['1', '2', '3', '4']);
  });

  it('depth 0 scans nothing', () => {
    expect(fired({ books, messages, input: 'to the tower', settings: { scanDepth: 0 } })).toEqual([]);
  });

  it('an entry scan depth overrides the global one', () => {
    const deep = [book([{ key: ['castle'], content: 'a', scanDepth: 5 }, { key: ['harbour'], content: 'b' }])];
    expect(fired({ books: deep, messages, input: 'hello' })).toEqual(['0']);
  });

  it('names are part of the scanned text (includeNames) unless turned off', () => {
    const named = [book([{ key: ['Lia'], content: 'a' }])];
    expect(fired({ books: named, messages: [{ role: 'assistant', content: 'hello' }], input: 'hi', names: { char: 'Lia' } })).toEqual(['0']);
    expect(fired({ books: named, messages: [{ role: 'assistant', content: 'hello' }], input: 'hi', names: { char: 'Lia' }, settings: { includeNames: false } })).toEqual([]);
  });
});
