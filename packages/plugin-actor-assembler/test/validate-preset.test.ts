import { describe, expect, it } from 'vitest';
import { validatePreset } from '../src/index.js';
import { prompt, seedPrompts } from './helpers.js';

describe('validatePreset', () => {
  it('accepts a preset with one roleplay prompt and says where DIO goes', () => {
    const report = validatePreset({ prompts: seedPrompts() });
    expect(report.ok).toBe(true);
    expect(report.issues).toEqual([]);
    expect(report.dio).toEqual({ accepts: true, slot: { rule: 'roleplay', index: 1, identifier: 'character' }, name: 'roleplay' });
    expect(report.characterText).toEqual([]);
    expect(report.storyDraft).toBe('beforeInput');
    expect(report.preset?.prompts).toHaveLength(4);
  });

  it('reports the placeholder slot', () => {
    const report = validatePreset({ prompts: seedPrompts(prompt('sys', 'x {{getvar::systemPrompt}}')) });
    expect(report.dio).toMatchObject({ accepts: true, slot: { rule: 'placeholder', identifier: 'sys', offset: 2 } });
  });

  it.each([
    ['DIO_DUPLICATE_ROLEPLAY', [...seedPrompts(), prompt('b', 'x', { name: 'roleplay' })]],
    ['DIO_NO_SLOT', seedPrompts(prompt('c', 'plain'))],
    ['DIO_AMBIGUOUS_PLACEHOLDER', [...seedPrompts(prompt('c', '{{getvar::systemPrompt}}')), prompt('d', '{{getvar::systemPrompt}}')]],
    ['DIO_SLOT_DISABLED', seedPrompts(prompt('c', 'x', { name: 'roleplay', enabled: false }))],
  ])('a structurally valid preset that cannot take DIO: %s', (code, prompts) => {
    const report = validatePreset({ prompts });
    expect(report.ok).toBe(true);
    expect(report.dio.accepts).toBe(false);
    if (!report.dio.accepts) {
      expect(report.dio.reason.code).toBe(code);
      expect(report.dio.reason.message.length).toBeGreaterThan(10);
    }
  });

  it('with the overrides it will be used with: an override of the DIO slot prompt → DIO_SLOT_OVERRIDDEN (the code a DIO turn fails with)', () => {
    const rule1 = validatePreset({ prompts: seedPrompts() }, { overrides: { character: '{{original}} 附加' } });
    expect(rule1.ok).toBe(true);
    expect(rule1.dio).toMatchObject({ accepts: false, reason: { code: 'DIO_SLOT_OVERRIDDEN' } });
    const rule2 = validatePreset({ prompts: seedPrompts(prompt('sys', 'x {{getvar::systemPrompt}}')) }, { overrides: { sys: 'y' } });
    expect(rule2.dio).toMatchObject({ accepts: false, reason: { code: 'DIO_SLOT_OVERRIDDEN' } });
    // overrides of other prompts, or of a slot that ignores overrides, are fine
    expect(validatePreset({ prompts: seedPrompts() }, { overrides: { control: 'c' } }).dio.accepts).toBe(true);
    const locked = seedPrompts(prompt('character', 'x', { name: 'roleplay', forbidOverrides: true }));
    expect(validatePreset({ prompts: locked }, { overrides: { character: 'y' } }).dio.accepts).toBe(true);
    // bad options never make it throw
    expect(validatePreset({ prompts: seedPrompts() }, null as never).dio.accepts).toBe(true);
    expect(validatePreset({ prompts: seedPrompts() }, { overrides: 'nope' as never }).dio.accepts).toBe(true);
  });

  it('reports structural issues with paths, and still judges DIO as far as it can', () => {
    const report = validatePreset({ prompts: [prompt('a', 'A', { name: 'roleplay' }), prompt('a', 'B'), { identifier: 'x', role: 'narrator' }] });
    expect(report.ok).toBe(false);
    expect(report.preset).toBeUndefined();
    expect(report.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['prompts.1.identifier', 'prompts']));
    expect(report.issues.every((issue) => issue.code === 'PRESET_INVALID')).toBe(true);
    expect(report.dio.accepts).toBe(true);
  });

  it('never throws on garbage', () => {
    for (const value of [null, 42, 'preset', { prompts: 'no' }, { prompts: [null] }]) {
      const report = validatePreset(value);
      expect(report.ok).toBe(false);
      expect(report.issues.length).toBeGreaterThan(0);
    }
  });

  it('warns about prompts that write or read slot variables directly, and finds a story-draft slot', () => {
    const report = validatePreset({
      prompts: [...seedPrompts(), prompt('w', '{{setvar::dioCompiledPrompt::x}}'), prompt('r', '{{getvar::dioCompiledPrompt}}'), prompt('s', '{{getvar::storyDraft}}')],
    });
    expect(report.warnings.map((w) => [w.code, w.path])).toEqual([
      ['MACRO_RESERVED_VARIABLE', 'w'],
      ['MACRO_SLOT_VARIABLE_UNSET', 'r'],
    ]);
    expect(report.storyDraft).toBe('variable');
  });
});
