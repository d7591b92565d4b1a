import { describe, expect, it } from 'vitest';
import { type AssemblerError, DIO_PLACEHOLDER, type PromptEntry, applyDioCompiledPrompt } from '../src/index.js';
import { COMPILED, codeOf, prompt } from './helpers.js';

describe('applyDioCompiledPrompt — rule 1: one prompt named roleplay', () => {
  const prompts: PromptEntry[] = [
    prompt('main', 'Control instructions.'),
    prompt('char', 'Old character text {{char}}', { name: 'roleplay', role: 'user' }),
    prompt('extra', 'Also {{getvar::systemPrompt}} here'),
  ];

  it('replaces its whole content with the variable placeholder, keeps role and order, and binds the variable', () => {
    const result = applyDioCompiledPrompt(prompts, COMPILED);
    expect(result.prompts.map((p) => p.identifier)).toEqual(['main', 'char', 'extra']);
    // the compiled text arrives through the variable (as under rule 2), so it is placed verbatim
    expect(result.prompts[1]).toEqual({ identifier: 'char', name: 'roleplay', role: 'user', content: DIO_PLACEHOLDER });
    expect(result.variables).toEqual({ dioCompiledPrompt: COMPILED });
    // rule 1 wins: the placeholder elsewhere is left alone
    expect(result.prompts[2]?.content).toBe('Also {{getvar::systemPrompt}} here');
  });

  it('never mutates its input and returns fresh objects', () => {
    const before = structuredClone(prompts);
    const frozen = Object.freeze(prompts.map((p) => Object.freeze({ ...p })));
    const result = applyDioCompiledPrompt(frozen, COMPILED);
    expect(prompts).toEqual(before);
    expect(result.prompts).not.toBe(frozen);
    result.prompts.forEach((p, index) => {
      expect(p).not.toBe(frozen[index]);
    });
  });

  it('keeps extra fields of prompt entries', () => {
    const result = applyDioCompiledPrompt([{ ...prompt('r', 'x', { name: 'roleplay' }), enabled: true, custom: 1 } as PromptEntry], COMPILED);
    expect(result.prompts[0]).toMatchObject({ enabled: true, custom: 1, content: DIO_PLACEHOLDER });
  });

  it('two prompts named roleplay → DIO_DUPLICATE_ROLEPLAY, even with one placeholder', () => {
    const duplicate = [prompt('a', 'A', { name: 'roleplay' }), prompt('b', '{{getvar::systemPrompt}}'), prompt('c', 'C', { name: 'roleplay' })];
    expect(codeOf(() => applyDioCompiledPrompt(duplicate, COMPILED))).toBe('DIO_DUPLICATE_ROLEPLAY');
  });

  it('a disabled roleplay prompt → DIO_SLOT_DISABLED (never dropped silently)', () => {
    expect(codeOf(() => applyDioCompiledPrompt([prompt('a', 'A', { name: 'roleplay', enabled: false })], COMPILED))).toBe('DIO_SLOT_DISABLED');
  });

  it('only the exact name "roleplay" counts', () => {
    const near = [prompt('a', 'A', { name: 'Roleplay' }), prompt('b', 'B', { name: ' roleplay' }), prompt('c', 'x {{getvar::systemPrompt}} y')];
    const result = applyDioCompiledPrompt(near, COMPILED);
    expect(result.prompts.map((p) => p.content)).toEqual(['A', 'B', 'x {{getvar::dioCompiledPrompt}} y']);
  });
});

describe('applyDioCompiledPrompt — rule 2: one {{getvar::systemPrompt}}', () => {
  it('turns the single placeholder into {{getvar::dioCompiledPrompt}} and keeps surrounding text', () => {
    const prompts = [prompt('main', '规则。\n{{getvar::systemPrompt}}\n不要出戏。'), prompt('other', 'Other')];
    const result = applyDioCompiledPrompt(prompts, COMPILED);
    expect(result.prompts[0]?.content).toBe('规则。\n{{getvar::dioCompiledPrompt}}\n不要出戏。');
    expect(result.prompts[1]?.content).toBe('Other');
    expect(result.variables).toEqual({ dioCompiledPrompt: COMPILED });
    expect(prompts[0]?.content).toBe('规则。\n{{getvar::systemPrompt}}\n不要出戏。');
  });

  it('recognises the placeholder with spaces inside the braces, as the macro engine reads it', () => {
    const result = applyDioCompiledPrompt([prompt('main', '{{ getvar::systemPrompt }}')], COMPILED);
    expect(result.prompts[0]?.content).toBe('{{getvar::dioCompiledPrompt}}');
  });

  it('no roleplay and no placeholder → DIO_NO_SLOT', () => {
    expect(codeOf(() => applyDioCompiledPrompt([prompt('main', 'Nothing here {{getvar::other}}')], COMPILED))).toBe('DIO_NO_SLOT');
    expect(codeOf(() => applyDioCompiledPrompt([], COMPILED))).toBe('DIO_NO_SLOT');
  });

  it('two placeholders in two prompts → DIO_AMBIGUOUS_PLACEHOLDER with both identifiers', () => {
    try {
      applyDioCompiledPrompt([prompt('a', '{{getvar::systemPrompt}}'), prompt('b', '{{getvar::systemPrompt}}')], COMPILED);
      expect.unreachable();
    } catch (error) {
      expect((error as AssemblerError).code).toBe('DIO_AMBIGUOUS_PLACEHOLDER');
      expect((error as AssemblerError).details).toEqual({ identifiers: ['a', 'b'] });
    }
  });

  it('two placeholders in one prompt → DIO_AMBIGUOUS_PLACEHOLDER', () => {
    expect(codeOf(() => applyDioCompiledPrompt([prompt('a', '{{getvar::systemPrompt}} and {{getvar::systemPrompt}}')], COMPILED))).toBe('DIO_AMBIGUOUS_PLACEHOLDER');
  });

  it('a placeholder inside a disabled prompt still counts, and fails as DIO_SLOT_DISABLED when it is the slot', () => {
    expect(codeOf(() => applyDioCompiledPrompt([prompt('a', '{{getvar::systemPrompt}}', { enabled: false })], COMPILED))).toBe('DIO_SLOT_DISABLED');
    expect(codeOf(() => applyDioCompiledPrompt([prompt('a', '{{getvar::systemPrompt}}', { enabled: false }), prompt('b', '{{getvar::systemPrompt}}')], COMPILED))).toBe(
      'DIO_AMBIGUOUS_PLACEHOLDER',
    );
  });
});

describe('applyDioCompiledPrompt — input checks', () => {
  it('rejects an empty or non-string compiled prompt', () => {
    const prompts = [prompt('a', 'A', { name: 'roleplay' })];
    expect(codeOf(() => applyDioCompiledPrompt(prompts, ''))).toBe('DIO_COMPILED_PROMPT_INVALID');
    expect(codeOf(() => applyDioCompiledPrompt(prompts, '   \n'))).toBe('DIO_COMPILED_PROMPT_INVALID');
    expect(codeOf(() => applyDioCompiledPrompt(prompts, 42 as unknown as string))).toBe('DIO_COMPILED_PROMPT_INVALID');
  });

  it('rejects malformed prompts with PRESET_INVALID', () => {
    expect(codeOf(() => applyDioCompiledPrompt([{ identifier: 'a', name: 'roleplay' } as PromptEntry], COMPILED))).toBe('PRESET_INVALID');
    expect(codeOf(() => applyDioCompiledPrompt('nope' as unknown as PromptEntry[], COMPILED))).toBe('PRESET_INVALID');
  });
});
