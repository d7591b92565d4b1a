import { describe, expect, it } from 'vitest';
import { type MacroEnvironment, expandMacros } from '../../src/index.js';

function env(extra: Partial<MacroEnvironment> = {}): MacroEnvironment {
  return { variables: new Map(), user: '阿明', char: '莉娅', ...extra };
}

// 2026-12-01 15:04:05 UTC, a Tuesday.
const NOON_ISH = Date.UTC(2026, 11, 1, 15, 4, 5);

describe('random family', () => {
  it('{{random}} and {{roll}} follow the injected stream: the same seed gives the same text', () => {
    const text = '{{random::红::绿::蓝}} {{random:a,b,c}} {{roll::3d6+2}} {{roll 20}}';
    const first = expandMacros(text, env({ seed: 'turn-1' }));
    expect(expandMacros(text, env({ seed: 'turn-1' }))).toBe(first);
    const [color, letter, dice, d20] = first.split(' ');
    expect(['红', '绿', '蓝']).toContain(color);
    expect(['a', 'b', 'c']).toContain(letter);
    expect(Number(dice)).toBeGreaterThanOrEqual(5);
    expect(Number(dice)).toBeLessThanOrEqual(20);
    expect(Number(d20)).toBeGreaterThanOrEqual(1);
    expect(Number(d20)).toBeLessThanOrEqual(20);
    // a different seed eventually gives different text (over many draws of a 100-way choice)
    const options = Array.from({ length: 100 }, (_, i) => `o${i}`).join('::');
    const draws = new Set(['s1', 's2', 's3', 's4'].map((seed) => expandMacros(`{{random::${options}}}`, env({ seed }))));
    expect(draws.size).toBeGreaterThan(1);
  });

  it('an explicit random stream is used as given', () => {
    expect(expandMacros('{{random::a::b::c::d}}', env({ random: () => 0.99 }))).toBe('d');
    expect(expandMacros('{{roll::2d10}}', env({ random: () => 0 }))).toBe('2');
  });

  it('an invalid dice formula becomes empty with a warning, as in SillyTavern; a huge one is refused the same way', () => {
    // core-macros.js: `if (!droll.validate(formula)) { warn(...); return ''; }`
    const warnings: string[] = [];
    expect(expandMacros('Roll: {{roll::abc}}. {{roll::two dice}}|{{roll::100000d6}}|', env({ onWarning: (m) => warnings.push(m) }))).toBe('Roll: . ||');
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain('abc');
  });

  it('{{pick}} is stable per chat and position, differs by position and by chat, and rerolls with the reroll seed', () => {
    const options = Array.from({ length: 50 }, (_, i) => `o${i}`).join('::');
    const text = `{{pick::${options}}}|{{pick::${options}}}`;
    const a = expandMacros(text, env({ chatId: 'chat-a', seed: 'x' }));
    expect(expandMacros(text, env({ chatId: 'chat-a', seed: 'different turn' }))).toBe(a);
    const [first, second] = a.split('|');
    expect(first).not.toBe(second);
    const others = ['chat-b', 'chat-c', 'chat-d'].map((chatId) => expandMacros(text, env({ chatId })));
    expect(others.some((other) => other !== a)).toBe(true);
    const rerolled = ['1', '2', '3'].map((pickRerollSeed) => expandMacros(text, env({ chatId: 'chat-a', pickRerollSeed })));
    expect(rerolled.some((other) => other !== a)).toBe(true);
  });

  it('{{pick}} inside different {{if}} blocks at the same inner offset seeds differently', () => {
    const options = Array.from({ length: 50 }, (_, i) => `o${i}`).join('::');
    const out = expandMacros(`{{if 1}}{{pick::${options}}}{{/if}}#{{if 1}}{{pick::${options}}}{{/if}}`, env({ chatId: 'c' }));
    const [first, second] = out.split('#');
    expect(first).not.toBe(second);
  });
});

describe('time family (injected clock and zone)', () => {
  const at = (extra: Partial<MacroEnvironment> = {}) => env({ now: () => NOON_ISH, timeZone: 'UTC', ...extra });
  it('time, date, weekday, isotime, isodate, datetimeformat', () => {
    expect(expandMacros('{{time}}|{{date}}|{{weekday}}|{{isotime}}|{{isodate}}', at())).toBe('3:04 PM|December 1, 2026|Tuesday|15:04|2026-12-01');
    expect(expandMacros('{{datetimeformat::YYYY/MM/DD HH:mm:ss dddd [at] h A}}', at())).toBe('2026/12/01 15:04:05 Tuesday at 3 PM');
    expect(expandMacros('{{isotime}} {{isodate}}', at({ timeZone: 'Asia/Shanghai' }))).toBe('23:04 2026-12-01');
  });
  it('UTC offsets, including the legacy {{time_UTC±N}} form', () => {
    expect(expandMacros('{{time::UTC+2}}|{{time_UTC-10}}|{{time_UTC+9}}', at())).toBe('5:04 PM|5:04 AM|12:04 AM');
  });
  it('timeDiff humanizes', () => {
    expect(expandMacros('{{timeDiff::2023-01-01 12:00:00::2023-01-01 15:00:00}}', at())).toBe('3 hours ago');
    expect(expandMacros('{{timeDiff::2023-01-03::2023-01-01}}', at())).toBe('in 2 days');
  });
});

describe('names, card fields, chat and model', () => {
  const full = env({
    input: '灯塔还亮着吗？',
    model: 'deepseek-chat',
    group: ['莉娅', '阿海'],
    fields: { charPrompt: '你是{{char}}。', charInstruction: '只写{{char}}的台词。', charVersion: '1.2' },
    messages: [
      { role: 'assistant', content: '「进来吧。」' },
      { role: 'system', content: 'note' },
      { role: 'user', content: '灯塔还亮着吗？' },
    ],
  });
  it('input, model, charPrompt, charInstruction (and its charJailbreak alias), charVersion', () => {
    expect(expandMacros('{{input}}|{{model}}|{{charPrompt}}|{{charInstruction}}|{{charJailbreak}}|{{charVersion}}', full)).toBe('灯塔还亮着吗？|deepseek-chat|你是莉娅。|只写莉娅的台词。|只写莉娅的台词。|1.2');
  });
  it('lastMessage, lastUserMessage, lastCharMessage skip system notes', () => {
    expect(expandMacros('{{lastMessage}}|{{lastUserMessage}}|{{lastCharMessage}}|{{lastMessageId}}', full)).toBe('灯塔还亮着吗？|灯塔还亮着吗？|「进来吧。」|2');
    expect(expandMacros('[{{lastMessage}}][{{lastCharMessage}}]', env())).toBe('[][]');
  });
  it('group, charIfNotGroup and the legacy markers', () => {
    expect(expandMacros('{{group}}|<GROUP>|{{charIfNotGroup}}|<USER>/<BOT>/<CHAR>', full)).toBe('莉娅, 阿海|莉娅, 阿海|莉娅, 阿海|阿明/莉娅/莉娅');
  });
});

describe('utility family', () => {
  it('newline and space take counts; noop is empty but stops trimming', () => {
    expect(expandMacros('a{{newline::2}}b{{space::3}}c{{noop}}d', env())).toBe('a\n\nb   cd');
    expect(expandMacros('{{if yes}}  {{noop}}  x{{/if}}', env())).toBe('  x');
  });
  it('{{comment::…}} is an alias of {{// …}}: removed, in every call form, and nothing inside runs', () => {
    const e = env();
    expect(expandMacros('A{{comment::note}}B{{comment a note}}C{{COMMENT::x::y}}D{{comment}}E{{comment::{{setvar::x::1}}}}F[{{getvar::x}}]', e)).toBe('ABCDEF[]');
    expect(expandMacros('A{{comment}}\nhidden {{setvar::y::2}}\n{{/comment}}B', e)).toBe('AB');
    expect(e.variables.size).toBe(0);
  });
  it('a block comment {{//}}…{{///}} removes everything inside; nothing in a comment runs', () => {
    const e = env();
    expect(expandMacros('A{{//}}\nread me {{setvar::x::1}}\n{{///}}B{{// {{setvar::y::2}} }}C[{{getvar::x}}{{getvar::y}}]', e)).toBe('ABC[]');
    expect(e.variables.size).toBe(0);
  });
  it('global variables: set/add/inc/dec/get on the global map, separate from locals', () => {
    const globals = new Map<string, string>();
    const e = env({ globalVariables: globals });
    expect(expandMacros('{{setglobalvar::n::1}}{{addglobalvar::n::4}}{{incglobalvar::n}}{{decglobalvar::n}}|{{getglobalvar::n}}|{{getvar::n}}', e)).toBe('65|5|');
    expect(globals.get('n')).toBe('5');
  });
  it('addvar appends to text and to JSON arrays', () => {
    const e = env({ variables: new Map([['list', '["a"]'], ['s', '你']]) });
    expandMacros('{{addvar::list::b}}{{addvar::s::好}}{{addvar::fresh::x}}', e);
    expect(Object.fromEntries(e.variables)).toEqual({ list: '["a","b"]', s: '你好', fresh: 'x' });
  });
  it('nesting deeper than the limit stays text instead of recursing (no stack overflow)', () => {
    const deep = `${'{{reverse::'.repeat(5000)}x${'}}'.repeat(5000)}`;
    const out = expandMacros(deep, env());
    expect(out.length).toBeGreaterThan(0);
    expect(out).toContain('x');
  });
  it('many unterminated openers parse in linear time (memoised), text unchanged', () => {
    const text = `${'{{a '.repeat(20000)}}}`;
    expect(expandMacros(text, env())).toBe(text);
  });
  it('a self-referencing field is bounded', () => {
    expect(expandMacros('{{description}}', env({ fields: { description: 'x{{personality}}' , personality: 'y{{description}}' } }))).toBe('xy');
  });
});
