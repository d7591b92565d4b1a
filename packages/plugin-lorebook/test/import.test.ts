import { describe, expect, it } from 'vitest';
import { LorebookError, activateWorldInfo, importCardLorebook, importCharacterBook, importWorldInfo } from '../src/index.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return LorebookError.isInstance(error) ? error.code : `not a LorebookError: ${String(error)}`;
  }
  return undefined;
}

describe('standalone SillyTavern world-info files', () => {
  it('entries keyed by uid, with ST defaults for every absent field', () => {
    const { book, skipped } = importWorldInfo({ entries: { '7': { uid: 7, key: ['moon'], content: 'The moon is red.' } } }, { name: 'sky' });
    expect(skipped).toEqual([]);
    expect(book).toMatchObject({ name: 'sky', scope: 'global' });
    expect(book.entries[0]).toMatchObject({
      uid: '7',
      keys: ['moon'],
      selective: true,
      selectiveLogic: 'andAny',
      order: 100,
      position: 'before',
      depth: 4,
      role: 'system',
      probability: 100,
      useProbability: true,
      groupWeight: 100,
      sticky: 0,
      scanDepth: null,
      caseSensitive: null,
    });
  });

  it('lenient like ST: comma-separated key strings, numeric strings, null overrides, delayUntilRecursion as true', () => {
    const { book } = importWorldInfo({ entries: { a: { key: 'moon, star', order: '25', scanDepth: null, delayUntilRecursion: true, role: 2, group: 'sky,  night' } } });
    expect(book.entries[0]).toMatchObject({ uid: 'a', keys: ['moon', 'star'], order: 25, delayUntilRecursion: 1, role: 'assistant', groups: ['sky', 'night'] });
  });

  it('an unknown position is skipped with a reason; a duplicate uid keeps the first', () => {
    const { book, skipped } = importWorldInfo({ entries: [{ uid: 1, key: ['a'], position: 9 }, { uid: 2, key: ['b'] }, { uid: 2, key: ['c'] }] });
    expect(book.entries.map((entry) => entry.keys[0])).toEqual(['b']);
    expect(skipped).toEqual([
      { uid: '1', reason: 'unknown position 9' },
      { uid: '2', reason: 'duplicate uid' },
    ]);
  });

  it('bad input gets a clear error with a stable code and paths', () => {
    expect(codeOf(() => importWorldInfo('{nope'))).toBe('LOREBOOK_JSON_INVALID');
    expect(codeOf(() => importWorldInfo({ notEntries: [] }))).toBe('LOREBOOK_INVALID');
    try {
      importWorldInfo({ entries: { '3': { key: ['a'], content: { text: 'object' } }, '4': { key: ['b'], order: 'high' } } });
      expect.unreachable();
    } catch (error) {
      expect(LorebookError.isInstance(error) && error.code).toBe('LOREBOOK_INVALID');
      expect((error as LorebookError).issues.map((issue) => issue.path)).toEqual(['entries.3.content', 'entries.4.order']);
    }
    expect(codeOf(() => importWorldInfo('x'.repeat(16 * 1024 * 1024 + 1)))).toBe('LOREBOOK_TOO_LARGE');
  });

  it('a character_book saved on its own imports as a book', () => {
    const { book } = importWorldInfo({ entries: [{ keys: ['moon'], content: 'red', enabled: true, insertion_order: 5 }] }, { name: 'cb' });
    expect(book.entries[0]).toMatchObject({ keys: ['moon'], order: 5 });
  });
});

describe('card character_book (V2/V3)', () => {
  const v2Entry = {
    id: 3,
    keys: ['castle'],
    secondary_keys: ['king'],
    content: 'The castle.',
    extensions: { position: 4, depth: 1, role: 1, selectiveLogic: 3, probability: 40, sticky: 2, cooldown: 3, delay: 1, group: 'places', group_override: true, group_weight: 7, exclude_recursion: true, prevent_recursion: true, delay_until_recursion: 2, scan_depth: 6, case_sensitive: true, match_whole_words: false, use_group_scoring: true },
    enabled: true,
    insertion_order: 42,
    constant: false,
    selective: true,
    comment: 'Castle',
    position: 'after_char',
  };

  it('maps spec fields and ST extensions as ST\'s convertCharacterBook does', () => {
    const { book } = importCharacterBook({ name: 'Lia lore', entries: [v2Entry] });
    expect(book).toMatchObject({ name: 'Lia lore', scope: 'character' });
    expect(book.entries[0]).toEqual(
      expect.objectContaining({
        uid: '3',
        comment: 'Castle',
        keys: ['castle'],
        secondaryKeys: ['king'],
        selective: true,
        selectiveLogic: 'andAll',
        order: 42,
        position: 'atDepth',
        depth: 1,
        role: 'user',
        probability: 40,
        sticky: 2,
        cooldown: 3,
        delay: 1,
        groups: ['places'],
        groupOverride: true,
        groupWeight: 7,
        excludeRecursion: true,
        preventRecursion: true,
        delayUntilRecursion: 2,
        scanDepth: 6,
        caseSensitive: true,
        matchWholeWords: false,
        useGroupScoring: true,
      }),
    );
  });

  it('without extensions: before_char/after_char, enabled false → disabled, selective defaults off (ST)', () => {
    const { book } = importCharacterBook({
      entries: [
        { keys: ['a'], content: 'x', enabled: true, insertion_order: 1, position: 'before_char' },
        { keys: ['b'], content: 'y', enabled: false, insertion_order: 2 },
      ],
    });
    expect(book.entries.map((entry) => [entry.uid, entry.position, entry.disabled, entry.selective])).toEqual([
      ['0', 'before', false, false],
      ['1', 'after', true, false],
    ]);
  });

  it('V3 use_regex is ignored like ST (its exporter writes it on plain keys)', () => {
    const { book } = importCharacterBook({ entries: [{ keys: ['Moon'], content: 'x', enabled: true, insertion_order: 1, use_regex: true }] });
    expect(activateWorldInfo({ books: [book], messages: [], input: 'the moon' }).entries).toHaveLength(1);
  });

  it("entries come in SillyTavern's order: by integer id (convertCharacterBook keys an object by id), other ids after in file order", () => {
    const entry = (id: unknown, content: string) => ({ id, keys: ['k'], content, insertion_order: 100, enabled: true });
    const { book } = importCharacterBook({ entries: [entry(5, 'five'), entry('x', 'named'), entry(1, 'one'), entry(undefined, 'fourth in the array')] });
    expect(book.entries.map((e) => `${e.uid}:${e.content}`)).toEqual(['1:one', '3:fourth in the array', '5:five', 'x:named']);
    // The scan (and so the budget) and the placement follow that order, as in ST.
    const tight = activateWorldInfo({ books: [book], messages: [], input: 'k', settings: { budgetTokens: 4 }, countTokens: () => 2 });
    expect(tight.entries.map((e) => e.content)).toEqual(['one']);
  });

  it('a repeated id keeps the later entry, as ST overwrites; the earlier one is reported', () => {
    const { book, skipped } = importCharacterBook({
      entries: [
        { id: 1, keys: ['k'], content: 'first', enabled: true },
        { id: 2, keys: ['k'], content: 'other', enabled: true },
        { id: 1, keys: ['k'], content: 'second', enabled: true },
      ],
    });
    expect(book.entries.map((e) => `${e.uid}:${e.content}`)).toEqual(['1:second', '2:other']);
    expect(skipped).toEqual([{ uid: '1', reason: 'duplicate id: a later entry with this id was kept (as in SillyTavern)' }]);
  });

  it('importCardLorebook reads card.data.character_book and names the book after it or the card', () => {
    expect(importCardLorebook({ spec: 'chara_card_v2', data: { name: 'Lia' } })).toBeUndefined();
    expect(importCardLorebook({ spec: 'chara_card_v3', data: { name: 'Lia', character_book: { entries: [v2Entry] } } })?.book.name).toBe('Lia');
    expect(codeOf(() => importCardLorebook({ data: { character_book: 'x' } }))).toBe('LOREBOOK_INVALID');
  });
});

describe('activation input at the boundary', () => {
  it('malformed books, messages or settings are LOREBOOK_INPUT_INVALID; duplicate book names are refused', () => {
    const { book } = importWorldInfo({ entries: { '1': { key: ['a'] } } });
    expect(codeOf(() => activateWorldInfo({ books: [book], messages: [{ role: 'narrator', content: 'x' } as never], input: '' }))).toBe('LOREBOOK_INPUT_INVALID');
    expect(codeOf(() => activateWorldInfo({ books: [book], messages: [], input: '', settings: { scanDepth: -1 } }))).toBe('LOREBOOK_INPUT_INVALID');
    expect(codeOf(() => activateWorldInfo({ books: [book], messages: [], input: '', settings: { unknown: 1 } as never }))).toBe('LOREBOOK_INPUT_INVALID');
    expect(codeOf(() => activateWorldInfo({ books: [book, book], messages: [], input: '' }))).toBe('LOREBOOK_DUPLICATE_BOOK');
    // A hand-built book is checked entry by entry, every time (only frozen books are checked once).
    const handBuilt = { name: 'hand', entries: [{ ...book.entries[0]!, keys: [42] }] } as never;
    expect(codeOf(() => activateWorldInfo({ books: [handBuilt], messages: [], input: '' }))).toBe('LOREBOOK_INPUT_INVALID');
    expect(Object.isFrozen(book.entries[0])).toBe(true);
  });
});
