import { describe, expect, it } from 'vitest';
import { mayBacktrackCatastrophically } from '../src/regex/backtracking-risk.js';

describe('mayBacktrackCatastrophically', () => {
  it.each(['(a+)+$', '(a*)*', '(a|aa)*b', '(\\w+\\s?)+$', '(.*a){12}', '(x+x+)+y', '((ab)*)+', '(a)\\1', '(?<n>a)\\k<n>', '([\\s\\S]*?,)+$'])('flags %s', (source) => {
    expect(mayBacktrackCatastrophically(source)).toBe(true);
  });
  it.each([
    '<tucao>[\\s\\S]*?<\\/tucao>',
    '<([\\s\\S]*?)>(?=[\\s\\S]*?<\\/think>)',
    '(<disclaimer>.*?</disclaimer>)|(<guifan>.*?</guifan>)',
    '<options>\\s*?>选项一：\\s*([^>]+?)\\s*?>',
    '[(+*|]+',
    '(abc){2}',
    '\\(a+\\)+',
  ])('passes %s', (source) => {
    expect(mayBacktrackCatastrophically(source)).toBe(false);
  });
});
