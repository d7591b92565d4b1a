import { describe, expect, it } from 'vitest';
import { book, fired, run } from './helpers.js';

// ST's world_info_logic: AND_ANY 0, NOT_ALL 1, NOT_ANY 2, AND_ALL 3 (checkWorldInfo → matchSecondaryKeys).
const entry = (selectiveLogic: number) => book([{ key: ['sword'], keysecondary: ['fire', 'ice'], selective: true, selectiveLogic, content: 'x' }]);

describe('secondary keys', () => {
  it('AND ANY: the primary key plus at least one secondary key', () => {
    expect(fired({ books: [entry(0)], input: 'a sword' })).toEqual([]);
    expect(fired({ books: [entry(0)], input: 'a sword of ice' })).toEqual(['0']);
    expect(run({ books: [entry(0)], input: 'a sword of ice' }).entries[0]).toMatchObject({ reason: 'key', key: 'sword', secondaryKey: 'ice' });
  });

  it('AND ALL: every secondary key', () => {
    expect(fired({ books: [entry(3)], input: 'a sword of ice' })).toEqual([]);
    expect(fired({ books: [entry(3)], input: 'a sword of ice and fire' })).toEqual(['0']);
  });

  it('NOT ANY: no secondary key may be present', () => {
    expect(fired({ books: [entry(2)], input: 'a sword' })).toEqual(['0']);
    expect(fired({ books: [entry(2)], input: 'a sword of fire' })).toEqual([]);
  });

  it('NOT ALL: at least one secondary key is missing', () => {
    expect(fired({ books: [entry(1)], input: 'a sword of fire' })).toEqual(['0']);
    expect(fired({ books: [entry(1)], input: 'a sword of fire and ice' })).toEqual([]);
    expect(fired({ books: [entry(1)], input: 'a sword' })).toEqual(['0']);
  });

  it('secondary keys without a primary match never activate', () => {
    expect(fired({ books: [entry(2)], input: 'nothing here' })).toEqual([]);
  });

  it('selective off ignores secondary keys (cards written with selective: false)', () => {
    const books = [book([{ key: ['sword'], keysecondary: ['fire'], selective: false, selectiveLogic: 3, content: 'x' }])];
    expect(fired({ books, input: 'a sword' })).toEqual(['0']);
  });
});

describe('constant, disabled and decorators', () => {
  it('constant entries activate without keys; disabled entries never', () => {
    const books = [book([{ key: ['x'], constant: true, content: 'always' }, { key: ['storm'], disable: true, content: 'off' }, { constant: true, disable: true, content: 'off too' }])];
    const result = run({ books, input: 'storm' });
    expect(result.entries.map((e) => [e.uid, e.reason])).toEqual([['0', 'constant']]);
  });

  it('@@activate forces an entry on, @@dont_activate keeps it off; the lines are not part of the content', () => {
    const books = [book([{ key: ['never'], content: '@@activate\nforced text' }, { key: ['storm'], content: '@@dont_activate\nquiet' }])];
    const result = run({ books, input: 'storm' });
    expect(result.entries.map((e) => [e.uid, e.reason, e.content])).toEqual([['0', 'decorator', 'forced text']]);
  });
});
