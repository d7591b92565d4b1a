import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importCharacterCard } from '@troupe/plugin-actor-assembler';
import { describe, expect, it } from 'vitest';
import { type Lorebook, activateWorldInfo, importCardLorebook, importWorldInfo } from '../src/index.js';
import { CORPUS } from './helpers.js';

function cardBook(file: string): Lorebook {
  const card = importCharacterCard(new Uint8Array(readFileSync(join(CORPUS, 'cards', file))));
  const imported = importCardLorebook(card.source);
  if (!imported) throw new Error(`${file} has no character_book`);
  expect(imported.skipped).toEqual([]);
  return imported.book;
}

const uids = (entries: readonly { uid: string }[]) => entries.map((entry) => entry.uid);

// Expected results are written from SillyTavern's rules with its default settings (scan depth 2:
// the input and the last message; whole words; recursion on; budget 25 % of the context).
describe('the real world-info file and cards', () => {
  // Eldoria keys: 0 eldoria/wood/forest/magical forest, 1 shadowfang/beast/monster(s)/beasts,
  // 2 glade/safe haven/refuge, 3 power/magic/ability; all order 100, position before.
  const seraphinaChat = [
    { role: 'user' as const, content: 'Where am I?' },
    { role: 'assistant' as const, content: 'You are in my glade, safe from harm.' },
  ];
  const input = 'What are those beasts in the woods?';

  it('l01 Eldoria: glade and beasts from the chat, then Eldoria and magic by recursion ("woods" is not the whole word "wood")', () => {
    const { book } = importWorldInfo(readFileSync(join(CORPUS, 'lorebooks', 'l01-st-eldoria.json'), 'utf8'), { name: 'Eldoria' });
    const result = activateWorldInfo({ books: [book], messages: seraphinaChat, input });
    const pass = Object.fromEntries(result.entries.map((entry) => [entry.uid, [entry.pass, entry.key]]));
    // The first key (in key order) that matches is reported: "beast" is not a whole word in
    // "beasts"; the glade entry's text says "Eldoria" and "my power protects".
    expect(pass).toEqual({ '1': [1, 'beasts'], '2': [1, 'glade'], '0': [2, 'eldoria'], '3': [2, 'power'] });
    // ST prepends by descending order; with equal orders the prompt reads in reverse activation order.
    expect(uids(result.byPosition.before)).toEqual(['3', '0', '2', '1']);
    // Without whole words, "woods" contains "wood": Eldoria fires from the chat itself.
    const loose = activateWorldInfo({ books: [book], messages: seraphinaChat, input, settings: { matchWholeWords: false } });
    expect(loose.entries.find((entry) => entry.uid === '0')?.pass).toBe(1);
    // Recursion off: only what the chat names.
    expect(uids(activateWorldInfo({ books: [book], messages: seraphinaChat, input, settings: { recursive: false } }).entries).sort()).toEqual(['1', '2']);
  });

  it('c01 Seraphina (PNG V2 character_book, same lore): the same entries fire', () => {
    const book = cardBook('c01-st-seraphina-v2.png');
    expect(book.scope).toBe('character');
    const result = activateWorldInfo({ books: [book], messages: seraphinaChat, input });
    expect(uids(result.entries).sort()).toEqual(['0', '1', '2', '3']);
  });

  it('c17 爱 (JSON V3, empty description): constants plus the characters and places named in the last two messages', () => {
    const book = cardBook('c17-zh-ai-v3.json');
    const result = activateWorldInfo({
      books: [book],
      messages: [{ role: 'assistant', content: '大师兄李德在宗门外等你。' }],
      input: '师尊，沈念今天想去皇城。',
      // These cards are written for long-context models; 25 % of 8k cannot hold their constants.
      settings: { contextSize: 128_000 },
    });
    // before (ascending order): 世界设定 10, 扮演准则 20, 玄天宗 30 (宗门), 皇城 50.
    expect(uids(result.byPosition.before)).toEqual(['0', '1', '2', '4']);
    // after: 李德_二次解释 0 (constant), 李德 90/96 (李德, 大师兄), 沈念 91/97/110, 云棠 94/100 (师尊).
    expect(uids(result.byPosition.after)).toEqual(['21', '8', '9', '12', '14', '15', '18', '20']);
    // @depth 0: the constant 阶段指导 120, 变量更新规则 140, 变量输出格式 141, 变量列表 150; [InitVar] is disabled.
    expect(uids(result.byPosition.atDepth)).toEqual(['22', '24', '25', '26']);
    // Every entry here prevents recursion, so nothing fired in a second pass.
    expect(result.entries.every((entry) => entry.pass === 1)).toBe(true);
  });

  it('c14 (PNG V3, empty description, whole character in constants): the enabled constants, and a sticky event entry by its key', () => {
    const book = cardBook('c14-zh-stagedog-example-v3.png');
    const settings = { contextSize: 128_000 };
    const quiet = activateWorldInfo({ books: [book], messages: [], input: '你好', settings });
    // Enabled constants: 0, 1, 4, 5, 6, 10 at depth 0 and 9 (角色详情) after the character; all
    // order 14720, so each position reads in reverse scan order. Disabled ones (2, 3, 7, 8, 11, 12, 15) never.
    expect(uids(quiet.byPosition.atDepth)).toEqual(['10', '6', '5', '4', '1', '0']);
    expect(uids(quiet.byPosition.after)).toEqual(['9']);
    expect(quiet.entries.every((entry) => entry.reason === 'constant')).toBe(true);
    const event = activateWorldInfo({ books: [book], messages: [], input: '【【冲动啊，请平息吧】】', settings });
    expect(event.entries.find((entry) => entry.uid === '13')).toMatchObject({ reason: 'key', position: 'atDepth', depth: 0 });
    expect(event.state.sticky[`${book.name}.13`]).toEqual({ start: 1, end: 6, protected: false });
  });

  it('c10 Shinobu (413 entries): keyed entries without secondary keys fire when the input is their own first key', () => {
    const book = cardBook('c10-shinobu-v3.json');
    expect(book.entries).toHaveLength(413);
    let checked = 0;
    // Every 5th entry keeps the test lean; the property is the same for each.
    for (const entry of book.entries.filter((_, index) => index % 5 === 0)) {
      if (entry.disabled || entry.secondaryKeys.length > 0 || entry.keys.length === 0) continue;
      const key = entry.keys[0]!;
      const result = activateWorldInfo({ books: [book], messages: [], input: key, settings: { recursive: false, contextSize: 1_000_000 } });
      expect(uids(result.entries), `entry ${entry.uid} key ${key}`).toContain(entry.uid);
      checked++;
    }
    expect(checked).toBeGreaterThan(60);
  });
});
