import { describe, expect, it } from 'vitest';
import { expandMacros, type MacroEnvironment } from '../src/index.js';
import { findMacros } from '../src/macros.js';
import { codeOf } from './helpers.js';

function env(extra: Partial<MacroEnvironment> = {}): MacroEnvironment {
  return { variables: new Map(), user: '阿明', char: '莉娅', ...extra };
}

describe('expandMacros', () => {
  it('expands names, case-insensitively, plus the legacy <USER>/<BOT> forms', () => {
    expect(expandMacros('{{char}} greets {{user}}; {{CHAR}}/{{ User }}; <USER> & <bot>', env())).toBe('莉娅 greets 阿明; 莉娅/阿明; 阿明 & 莉娅');
    expect(expandMacros('{{char}} and {{user}}', { variables: new Map() })).toBe('Character and User');
  });

  it('setvar then getvar in one text, left to right; setvar writes nothing into the text', () => {
    const e = env();
    expect(expandMacros('[{{getvar::mood}}]{{setvar::mood::平静}}[{{getvar::mood}}]', e)).toBe('[][平静]');
    expect(e.variables.get('mood')).toBe('平静');
    // the same map carries over to the next text
    expect(expandMacros('心情：{{getvar::mood}}', e)).toBe('心情：平静');
  });

  it('setvar with more arguments than it takes stays as text (SillyTavern), with a warning; names are trimmed and case-sensitive', () => {
    const warnings: string[] = [];
    const e = env({ onWarning: (message) => warnings.push(message) });
    expect(expandMacros('{{setvar:: 标签 ::a::b 🌊}}', e)).toBe('{{setvar:: 标签 ::a::b 🌊}}');
    expect(warnings).toHaveLength(1);
    expandMacros('{{setvar:: 标签 ::a b 🌊}}', e);
    expect(expandMacros('{{getvar::标签}}|{{getvar::标 签}}|{{getvar::Mood}}', e)).toBe('a b 🌊||');
  });

  it('nested macros resolve inside-out: the inner result becomes the outer argument', () => {
    const e = env({ variables: new Map([['阿明', '变量值']]) });
    expect(expandMacros('{{getvar::{{user}}}}', e)).toBe('变量值');
    expect(expandMacros('{{{char}}}', e)).toBe('{莉娅}');
  });

  it('results are never re-scanned: a value containing macros stays literal, so expansion cannot loop', () => {
    const e = env({ variables: new Map([['loop', '{{getvar::loop}}'], ['x', '{{char}}']]) });
    expect(expandMacros('{{getvar::loop}} {{getvar::x}}', e)).toBe('{{getvar::loop}} {{char}}');
    expect(expandMacros('{{setvar::a::{{getvar::a}}}}[{{getvar::a}}]', e)).toBe('[]');
  });

  it('unknown macros are kept as text by default, or rejected with MACRO_UNKNOWN', () => {
    const unknown: string[] = [];
    expect(expandMacros('{{wander::a,b}} {{}} {{setvar::onlyname}}', env({ onUnknownMacro: (name) => unknown.push(name) }))).toBe('{{wander::a,b}} {{}} {{setvar::onlyname}}');
    expect(unknown).toEqual(['wander']);
    expect(codeOf(() => expandMacros('hi {{wander::a,b}}', env({ unknownMacros: 'error' })))).toBe('MACRO_UNKNOWN');
  });

  it('an unset ordinary variable reads as "" but an unset slot variable is an error', () => {
    expect(expandMacros('<{{getvar::nothing}}>', env())).toBe('<>');
    expect(codeOf(() => expandMacros('{{getvar::dioCompiledPrompt}}', env()))).toBe('MACRO_SLOT_VARIABLE_UNSET');
    expect(codeOf(() => expandMacros('{{getvar::storyDraft}}', env()))).toBe('MACRO_SLOT_VARIABLE_UNSET');
  });

  it('setvar may not write a slot variable', () => {
    expect(codeOf(() => expandMacros('{{setvar::dioCompiledPrompt::fake}}', env()))).toBe('MACRO_RESERVED_VARIABLE');
  });

  it('{{original}} and character fields', () => {
    const e = env({ original: '原文', fields: { description: '灯塔看守人', mesExamples: '<START>' } });
    expect(expandMacros('{{original}}|{{description}}|{{mesExamples}}|{{personality}}', e)).toBe('原文|灯塔看守人|<START>|');
    expect(expandMacros('{{original}}', env())).toBe('');
  });

  it('leaves unbalanced braces and plain Chinese text untouched', () => {
    const text = '「你好」{{char 还有 }} {{ 和 }}}{{';
    expect(expandMacros(text, env())).toBe('「你好」{{char 还有 }} {{ 和 }}}{{');
    expect(expandMacros('莉娅说：「海比人诚实。」', env())).toBe('莉娅说：「海比人诚实。」');
  });
});

describe('findMacros', () => {
  it('lists macros with positions and split arguments', () => {
    const found = findMacros('a{{getvar::x}}b{{setvar::y::1::2}}');
    expect(found).toEqual([
      { name: 'getvar', args: ['x'], index: 1, raw: '{{getvar::x}}' },
      { name: 'setvar', args: ['y', '1::2'], index: 15, raw: '{{setvar::y::1::2}}' },
    ]);
  });
});

describe('character fields', () => {
  it('expand their own macros (as SillyTavern does); a field that mentions itself expands to nothing', () => {
    const e = env({ variables: new Map([['x', '值']]), fields: { description: '{{char}} meets {{ user }} / <BOT> {{getvar::x}} [{{description}}]' } });
    expect(expandMacros('{{description}}', e)).toBe('莉娅 meets 阿明 / 莉娅 值 []');
  });
});
