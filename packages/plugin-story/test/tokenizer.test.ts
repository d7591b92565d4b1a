import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tokenize } from '../src/retrieval/tokenizer.js';

// What ICU itself says: the word-like segments of `Intl.Segmenter` on the whole text.
const icu = new Intl.Segmenter('zh', { granularity: 'word' });
function icuWords(text: string): string[] {
  return [...icu.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
}

// One character of every ASCII class the word-break rules tell apart (letters both cases, a
// digit, each joiner, spaces, line breaks, plain punctuation) plus `_` and a non-ASCII letter,
// which leave the text to ICU.
const ALPHABET = ['a', 'Z', '7', ':', '.', "'", ',', ';', ' ', '\n', '\r', '\t', '-', '/', '"', '_', 'é'];

// The lorebook's texts: real English (and some other) prose.
function corpusTexts(): string[] {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) dir = dirname(dir);
  const book = JSON.parse(readFileSync(join(dir, '..', 'shared', 'corpus', 'lorebooks', 'l01-st-eldoria.json'), 'utf8')) as { entries: Record<string, { content?: string }> };
  return Object.values(book.entries).map((entry) => entry.content ?? '');
}

describe('tokenize', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives exactly the word-like segments of Intl.Segmenter for every string of up to 4 characters over the word-break classes', () => {
    const strings: string[] = [''];
    for (let length = 1; length <= 4; length++) {
      for (const prefix of strings.filter((s) => s.length === length - 1)) for (const c of ALPHABET) strings.push(prefix + c);
    }
    const differing = strings.filter((text) => JSON.stringify(tokenize(text)) !== JSON.stringify(icuWords(text)));
    expect(differing).toEqual([]);
  });

  it('gives exactly the word-like segments of Intl.Segmenter for longer random strings and real prose', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const texts = Array.from({ length: 3000 }, () => Array.from({ length: 5 + Math.floor(next() * 40) }, () => ALPHABET[Math.floor(next() * (ALPHABET.length - 2))]!).join(''));
    const prose = corpusTexts();
    expect(prose.some((text) => /^[\x20-\x7e\n]{200,}$/.test(text))).toBe(true);
    for (const text of [...texts, ...prose, 'e.g. 3.14, 1,000; don\'t stop: a.b.c', 'The tavern sells ale.']) expect(tokenize(text)).toEqual(icuWords(text));
  });

  it('segments plain ASCII text without an Intl.Segmenter call, and any other text with one', () => {
    tokenize('warm up'); // the first call checks ICU (with a segment call of its own)
    const mixed = '公会 owes the guild';
    const expected = icuWords(mixed);
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    expect(tokenize("- The guard's ale costs 3.50, he said.")).toEqual(['The', "guard's", 'ale', 'costs', '3.50', 'he', 'said']);
    expect(segment).not.toHaveBeenCalled();
    expect(tokenize(mixed)).toEqual(expected);
    expect(tokenize('snake_case')).toEqual(['snake_case']);
    expect(segment).toHaveBeenCalledTimes(2);
  });
});
