import { validateTreePath } from '@troupe/kernel/storage';
import { describe, expect, it } from 'vitest';

const codeOf = (path: string) => {
  try {
    validateTreePath(path);
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'ok';
};

describe('validateTreePath, called again and again (every commit and settlement names its files)', () => {
  it('gives the same normal form each time and rejects a bad path every time', () => {
    const decomposed = 'characters/cafe\u0301/knowledge.md';
    for (let round = 0; round < 3; round++) {
      expect(validateTreePath('history.md')).toBe('history.md');
      // NFC: a decomposed letter is composed (and then fails the a-z allowlist every time).
      expect(codeOf(decomposed)).toBe('TREE_INVALID_PATH');
      for (const bad of ['../history.md', '/abs.md', 'con.md', 'a\\b.md', 'notes.txt', '', 'a/'.repeat(9) + 'x.md']) expect(codeOf(bad), bad).toBe('TREE_INVALID_PATH');
      expect(codeOf(42 as unknown as string)).toBe('TREE_INVALID_PATH');
    }
    // Past the remembered paths, early ones are still checked and still valid.
    for (let n = 0; n < 400; n++) expect(validateTreePath(`characters/c${n}/knowledge.md`)).toBe(`characters/c${n}/knowledge.md`);
    expect(validateTreePath('characters/c0/knowledge.md')).toBe('characters/c0/knowledge.md');
  });
});
