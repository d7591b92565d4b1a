import { describe, expect, it } from 'vitest';
import { parseRegexKey } from '../src/index.js';
import { book, fired } from './helpers.js';

// Expected results follow SillyTavern's WorldInfoBuffer.matchKeys (public/scripts/world-info.js).
describe('primary keys', () => {
  it('a plain key matches case-insensitively by default, anywhere in the scanned text', () => {
    const books = [book([{ key: ['Dragon'], content: 'dragons breathe fire' }, { key: ['griffin'], content: 'x' }])];
    expect(fired({ books, input: 'I saw a DRAGON today' })).toEqual(['0']);
  });

  it('any one of several primary keys is enough', () => {
    const books = [book([{ key: ['wolf', 'hound'], content: 'x' }])];
    expect(fired({ books, input: 'a hound barks' })).toEqual(['0']);
    expect(fired({ books, input: 'a cat purrs' })).toEqual([]);
  });

  it('a /regex/flags key is a regex with its own flags (no lower-casing)', () => {
    const books = [book([{ key: ['/\\bdrag(on|oness)\\b/'], content: 'x' }, { key: ['/ELF/i'], content: 'y' }])];
    expect(fired({ books, input: 'the dragoness sleeps' })).toEqual(['0']);
    expect(fired({ books, input: 'the DRAGON sleeps' })).toEqual([]);
    expect(fired({ books, input: 'an elf sings' })).toEqual(['1']);
  });

  it('a g flag does not make the same key alternate between match and miss', () => {
    const regex = parseRegexKey('/moon/g');
    expect(regex?.flags).toBe('');
    const books = [book([{ key: ['/moon/g'], content: 'x' }])];
    expect(fired({ books, input: 'moon' })).toEqual(['0']);
    expect(fired({ books, input: 'moon' })).toEqual(['0']);
  });

  it("regex keys see SillyTavern's scan text: each message starts with \\x01, messages joined by a newline", () => {
    // WorldInfoBuffer.get: '\x01' + messages.join('\n\x01'), recursion texts joined the same way.
    const messages = [{ role: 'assistant' as const, content: 'good morning' }];
    const run = (key: string) => fired({ books: [book([{ key: [key], content: 'x' }])], messages, input: 'hello there' });
    expect(run('/^hello/')).toEqual([]);
    expect(run('/^hello/m')).toEqual([]);
    expect(run('/hello/')).toEqual(['0']);
    expect(run('/^\\x01hello there\\n\\x01good morning$/')).toEqual(['0']);
    // sticky is kept as in ST: it must match at the start, which is the marker
    expect(run('/hello/y')).toEqual([]);
    expect(run('/\\x01hello/y')).toEqual(['0']);
    // the marker is a boundary for whole words and invisible to plain keys
    expect(fired({ books: [book([{ key: ['hello'], content: 'x' }, { key: ['morning'], content: 'y' }, { key: ['there good'], content: 'z' }])], messages, input: 'hello there' }).sort()).toEqual(['0', '1']);
  });

  it('regex flags are the ones SillyTavern reads ([gimsuy]); a key with others is plain text', () => {
    expect(parseRegexKey('/hel+o/v')).toBeNull();
    expect(parseRegexKey('/hel+o/d')).toBeNull();
    expect(parseRegexKey('/hel+o/su')?.flags).toBe('su');
    const books = [book([{ key: ['/hel+o/v'], content: 'x' }])];
    expect(fired({ books, input: 'hello' })).toEqual([]);
    expect(fired({ books, input: 'say /hel+o/v now' })).toEqual(['0']);
  });

  it('invalid or unescaped-slash patterns are plain keywords, like ST', () => {
    expect(parseRegexKey('/a/b/')).toBeNull();
    expect(parseRegexKey('/[unclosed/')).toBeNull();
    expect(parseRegexKey('/a\\/b/')?.source).toBe('a\\/b');
    const books = [book([{ key: ['/a/b/'], content: 'x' }])];
    expect(fired({ books, input: 'path /a/b/ here', settings: { matchWholeWords: false } })).toEqual(['0']);
  });

  it('case sensitivity: global setting and per-entry override', () => {
    const books = [book([{ key: ['Rose'], content: 'x' }, { key: ['Lily'], content: 'y', caseSensitive: false }])];
    expect(fired({ books, input: 'rose and lily', settings: { caseSensitive: true } })).toEqual(['1']);
    const perEntry = [book([{ key: ['Rose'], content: 'x', caseSensitive: true }])];
    expect(fired({ books: perEntry, input: 'rose' })).toEqual([]);
    expect(fired({ books: perEntry, input: 'Rose' })).toEqual(['0']);
  });

  it('whole words: a single-word key needs boundaries, a multi-word key is a substring', () => {
    const books = [book([{ key: ['cat'], content: 'x' }, { key: ['red fox'], content: 'y' }])];
    expect(fired({ books, input: 'a category of things' })).toEqual([]);
    expect(fired({ books, input: 'the cat, sleeping' })).toEqual(['0']);
    expect(fired({ books, input: 'a red foxes den' })).toEqual(['1']);
    expect(fired({ books, input: 'a category', settings: { matchWholeWords: false } })).toEqual(['0']);
    const perEntry = [book([{ key: ['cat'], content: 'x', matchWholeWords: false }])];
    expect(fired({ books: perEntry, input: 'a category' })).toEqual(['0']);
  });

  it('whole words do not break Chinese or Japanese keys (no spaces between words)', () => {
    const books = [book([{ key: ['龙'], content: 'x' }, { key: ['魔法学院'], content: 'y' }, { key: ['さくら'], content: 'z' }, { key: ['AI'], content: 'w' }])];
    expect(fired({ books, input: '一条龙在天上飞' })).toEqual(['0']);
    expect(fired({ books, input: '她考进了魔法学院。' })).toEqual(['1']);
    expect(fired({ books, input: '今日はさくらが咲いた' })).toEqual(['2']);
    expect(fired({ books, input: '我喜欢AI技术' })).toEqual(['3']);
    expect(fired({ books, input: 'MAIN menu' })).toEqual([]);
  });

  it("whole words use SillyTavern's ASCII boundaries: any character but A-Z, a-z, 0-9 and _ is one", () => {
    // ST: new RegExp(`(?:^|\\W)(${escapeRegex(key)})(?:$|\\W)`) without the u flag, so \W is
    // ASCII-only: a key in Korean, Russian or accented text matches next to any non-ASCII letter.
    const cases: [key: string, text: string, st: boolean][] = [
      ['민수', '민수가 문을 열었다.', true],
      ['서울', '우리는 서울에 갔어요', true],
      ['Москв', 'Едем в Москву', true],
      ['кот', 'Мой котик спит', true],
      ['caf', 'un café', true],
      ['café', 'cafés', false],
      ['Mr.', 'Mr.Smith arrived', false],
      ['Mr.', 'Mr. Smith arrived', true],
      ['-x', 'a-x b', false],
      ['-x', 'a -x b', true],
      ['cat', 'category', false],
      ['cat', 'concat', false],
      ['cat_', 'cat_', true],
      ['AI', '我喜欢AI技术', true],
    ];
    for (const [key, input, st] of cases) expect({ key, input, fired: fired({ books: [book([{ key: [key], content: 'x' }])], input }).length > 0 }).toEqual({ key, input, fired: st });
  });

  it('{{char}} and {{user}} in keys are substituted', () => {
    const books = [book([{ key: ['{{char}}'], content: 'x' }])];
    expect(fired({ books, input: 'where is Lia?', names: { char: 'Lia' } })).toEqual(['0']);
  });

  it('an entry without keys only activates as constant', () => {
    const books = [book([{ key: [], content: 'x' }, { key: [], constant: true, content: 'y' }])];
    expect(fired({ books, input: 'anything' })).toEqual(['1']);
  });
});
