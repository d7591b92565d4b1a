import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { type RegexScript, type RegexTarget, actorAssemblerPlugin, applyRegexScripts, assemble, expandMacros, importSillyTavernPreset } from '../src/index.js';
import { prompt } from './helpers.js';

const env = { variables: new Map<string, string>(), user: '阿明', char: '莉娅' };
const options = (mode: 'prompt' | 'stored', warnings: string[] = [], budgetMs?: number) => ({
  mode,
  expand: (text: string, escapeValue?: (value: string) => string) => expandMacros(text, escapeValue === undefined ? env : { ...env, transformResult: escapeValue }),
  warn: (message: string) => warnings.push(message),
  ...(budgetMs !== undefined ? { budgetMs } : {}),
});
const script = (extra: Partial<RegexScript> & { findRegex: string }): RegexScript => ({ scriptName: 's', replaceString: '', placement: [1, 2], ...extra });
const one = (text: string, placement: RegexTarget['placement'], scripts: RegexScript[], mode: 'prompt' | 'stored' = 'stored', depth?: number) =>
  applyRegexScripts([{ text, placement, ...(depth !== undefined ? { depth } : {}) }], scripts, options(mode))[0];

describe('regex scripts: placements', () => {
  it('a script applies only to the placements it lists (user input, AI output, world info, reasoning, slash commands)', () => {
    const s = script({ findRegex: '/x/g', replaceString: 'Y', placement: [1] });
    expect(one('x x', 'userInput', [s])).toBe('Y Y');
    expect(one('x x', 'aiOutput', [s])).toBe('x x');
    for (const [number, placement] of [
      [2, 'aiOutput'],
      [3, 'slashCommand'],
      [5, 'worldInfo'],
      [6, 'reasoning'],
    ] as const) {
      expect(one('x', placement, [script({ findRegex: 'x', replaceString: 'Y', placement: [number] })])).toBe('Y');
      expect(one('x', 'userInput', [script({ findRegex: 'x', replaceString: 'Y', placement: [number] })])).toBe('x');
    }
  });

  it('promptOnly scripts run only in prompt passes; plain scripts only in stored passes; markdownOnly never', () => {
    const promptOnly = script({ findRegex: 'a', replaceString: 'P', promptOnly: true });
    const plain = script({ findRegex: 'b', replaceString: 'S' });
    const display = script({ findRegex: 'c', replaceString: 'M', markdownOnly: true });
    expect(one('abc', 'userInput', [promptOnly, plain, display], 'prompt')).toBe('Pbc');
    expect(one('abc', 'userInput', [promptOnly, plain, display], 'stored')).toBe('aSc');
    expect(one('abc', 'userInput', [script({ findRegex: 'b', replaceString: 'S', disabled: true })], 'stored')).toBe('abc');
  });

  it('min/max depth limit a script to messages that far from the end', () => {
    const s = script({ findRegex: 'x', replaceString: 'Y', minDepth: 1, maxDepth: 2, promptOnly: true });
    const targets = [0, 1, 2, 3].map((depth) => ({ text: 'x', placement: 'userInput' as const, depth }));
    expect(applyRegexScripts(targets, [s], options('prompt'))).toEqual(['x', 'Y', 'Y', 'x']);
    // -1 / null mean "no limit"; text outside the chat (no depth) is always eligible
    expect(applyRegexScripts([{ text: 'x', placement: 'worldInfo' }], [script({ findRegex: 'x', replaceString: 'Y', placement: [5], minDepth: 3 })], options('stored'))).toEqual(['Y']);
  });
});

describe('regex scripts: replacement rules', () => {
  it('flags: without /…/g only the first match changes; i and s work; {{match}}, $1 and $<name> insert groups', () => {
    expect(one('aa', 'userInput', [script({ findRegex: 'a', replaceString: 'b' })])).toBe('ba');
    expect(one('aA', 'userInput', [script({ findRegex: '/a/gi', replaceString: 'b' })])).toBe('bb');
    expect(one('<t>1\n2</t>', 'userInput', [script({ findRegex: '/<t>(.*)<\\/t>/s', replaceString: '[$1]' })])).toBe('[1\n2]');
    expect(one('莉娅说：你好', 'userInput', [script({ findRegex: '/(?<who>\\S+?)说：(.*)/', replaceString: '{{match}}|$<who>|$2|$9' })])).toBe('莉娅说：你好|莉娅|你好|');
  });

  it('trim strings are removed from captured groups; macros in trim strings and in the replacement are expanded', () => {
    expect(one('<think>嗯……莉娅</think>', 'aiOutput', [script({ findRegex: '/<think>(.*)<\\/think>/', replaceString: '({{user}}) $1', trimStrings: ['……', '{{char}}'] })])).toBe('(阿明) 嗯');
  });

  it('substituteRegex: 1 expands macros in the pattern raw, 2 escapes their values', () => {
    const e = { ...env, char: 'a.b' };
    const expand = (text: string, escapeValue?: (value: string) => string) => expandMacros(text, escapeValue === undefined ? e : { ...e, transformResult: escapeValue });
    const run = (substituteRegex: number) =>
      applyRegexScripts([{ text: 'a.b axb', placement: 'userInput' }], [script({ findRegex: '/{{char}}/g', replaceString: 'C', substituteRegex })], { mode: 'stored', expand, warn: () => {} })[0];
    expect(run(0)).toBe('a.b axb');
    expect(run(1)).toBe('C C');
    expect(run(2)).toBe('C axb');
  });

  it('a failing script is a warning and changes nothing; later scripts still run', () => {
    const warnings: string[] = [];
    const out = applyRegexScripts([{ text: 'abc', placement: 'userInput' }], [script({ scriptName: 'broken', findRegex: '/(/g' }), script({ findRegex: '/bad/zz' }), script({ findRegex: 'c', replaceString: 'C' })], options('stored', warnings));
    expect(out).toEqual(['abC']);
    expect(warnings).toEqual([expect.stringContaining('"broken" was not applied'), expect.stringContaining('invalid regex flags')]);
  });

  it('catastrophic backtracking from an untrusted pattern is stopped by the time budget (a warning, text unchanged)', () => {
    const warnings: string[] = [];
    const evil = script({ scriptName: 'evil', findRegex: '/(a+)+$/', replaceString: 'x' });
    const text = `${'a'.repeat(40)}!`;
    const out = applyRegexScripts([{ text, placement: 'userInput' }], [evil, script({ findRegex: '!', replaceString: '?' })], options('stored', warnings, 50));
    expect(out).toEqual([`${'a'.repeat(40)}?`]);
    expect(warnings).toEqual([expect.stringContaining('"evil" was not applied: ran out of time')]);
  });
});

describe('regex scripts in assembly and in the stored reply', () => {
  const preset = (scripts: RegexScript[]) => ({ prompts: [prompt('chatHistory', '', { marker: 'chatHistory' })], regexScripts: scripts });
  const history = [
    { role: 'user' as const, content: 'u1 <tucao>a</tucao>' },
    { role: 'assistant' as const, content: 'a1 <tucao>b</tucao>' },
  ];

  it('prompt-only scripts rewrite the outgoing history by depth; stored user-input scripts rewrite user messages only; originals untouched', () => {
    const result = assemble({
      preset: preset([
        script({ findRegex: '/<tucao>[\\s\\S]*?<\\/tucao>/g', promptOnly: true, minDepth: 1, placement: [1, 2] }),
        script({ findRegex: '/u1/', replaceString: 'U1', placement: [1] }),
        script({ findRegex: '/a1/', replaceString: 'A1', placement: [2] }),
      ]),
      history,
      input: '现在 <tucao>c</tucao>',
    });
    expect(result.messages.map((m) => m.content)).toEqual(['U1 ', 'a1 ', '现在 <tucao>c</tucao>']);
    expect(history[0]?.content).toBe('u1 <tucao>a</tucao>');
  });

  it('card scripts run after the preset scripts', () => {
    const result = assemble({ preset: preset([script({ findRegex: 'x', replaceString: 'y', promptOnly: true })]), history: [], input: 'x', regexScripts: [script({ findRegex: 'y', replaceString: 'z', promptOnly: true })] });
    expect(result.messages.at(-1)?.content).toBe('z');
  });

  it('a broken script is reported in the result warnings, the assembly goes on', () => {
    const result = assemble({ preset: preset([script({ scriptName: 'oops', findRegex: '/[/', promptOnly: true })]), history: [], input: 'x' });
    expect(result.messages.at(-1)?.content).toBe('x');
    expect(result.warnings).toEqual([expect.stringContaining('"oops" was not applied')]);
  });

  it('AI-output scripts rewrite the reply before it is stored (review), as SillyTavern does on receive', async () => {
    const model = new ScriptedChatModel({ fallback: '「好。」<status>HP 3</status>' });
    const harness = await createHarness({
      plugins: [actorAssemblerPlugin({ preset: preset([script({ findRegex: '/<status>.*?<\\/status>/g', placement: [2] }), script({ findRegex: '好', replaceString: '行', placement: [2], promptOnly: true })]) })],
      model,
      sessionLog: new MemorySessionLog(),
    });
    const { reply } = await harness.runTurn({ sessionId: 's', text: '你好' });
    expect(reply).toBe('「好。」');
    await harness.close();
  });

  it('the importer brings a preset’s regex scripts along and names those it cannot apply', () => {
    const { preset: imported, warnings } = importSillyTavernPreset({
      prompts: [{ identifier: 'chatHistory', name: 'Chat History', marker: true }],
      extensions: {
        regex_scripts: [
          { scriptName: 'clean', findRegex: '/x/g', replaceString: '', placement: [2], promptOnly: true },
          { scriptName: 'pretty', findRegex: '/y/g', replaceString: '', placement: [2], markdownOnly: true },
          { scriptName: 'slash', findRegex: '/z/g', replaceString: '', placement: [3] },
          { findRegex: 42 },
        ],
        SPreset: {},
      },
    });
    expect(imported.regexScripts?.map((s) => s.scriptName)).toEqual(['clean', 'pretty', 'slash']);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('#3 is malformed'),
        expect.stringContaining('"pretty" only changes how messages are displayed'),
        expect.stringContaining('"slash" targets only slash commands'),
        expect.stringContaining('extensions not applied: SPreset'),
      ]),
    );
  });
});
