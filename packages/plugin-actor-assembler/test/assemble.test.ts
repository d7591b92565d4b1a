import { describe, expect, it } from 'vitest';
import { DEFAULT_STORY_DRAFT_INSTRUCTION, assemble, defaultPreset } from '../src/index.js';
import { CHARACTER, COMPILED, CONTROL, codeOf, prompt, seedHistory, seedPrompts } from './helpers.js';

const history = seedHistory();

describe('assemble', () => {
  it('without a compiled prompt, places prompts, history and input in preset order', () => {
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: '今晚会有风暴吗？' });
    expect(result.messages).toEqual([
      { role: 'system', content: CONTROL },
      { role: 'system', content: CHARACTER },
      ...history,
      { role: 'user', content: '今晚会有风暴吗？' },
    ]);
    expect(result.dioSlot).toBeUndefined();
    // history messages are the same objects (extra fields such as `name` survive)
    expect(result.messages[3]).toBe(history[1]);
  });

  it('with a compiled prompt: control → DIO prompt → history → question (the seed example)', () => {
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: '今晚会有风暴吗？', compiledPrompt: COMPILED });
    expect(result.messages.map((m) => m.content)).toEqual([CONTROL, COMPILED, '你好，莉娅。', '「进来吧。」', '今晚会有风暴吗？']);
    expect(result.dioSlot).toEqual({ rule: 'roleplay', index: 1, identifier: 'character' });
    expect(result.variables['dioCompiledPrompt']).toBe(COMPILED);
  });

  it('rule 2: the placeholder prompt carries the compiled prompt verbatim (its macros are not re-expanded)', () => {
    const preset = { prompts: seedPrompts(prompt('sys', '【角色】\n{{getvar::systemPrompt}}')) };
    const compiled = '你是{{char}}。';
    const result = assemble({ preset, history, input: 'hi', compiledPrompt: compiled, char: '莉娅' });
    expect(result.messages[1]).toEqual({ role: 'system', content: '【角色】\n你是{{char}}。' });
    expect(result.dioSlot?.rule).toBe('placeholder');
    // without DIO the placeholder reads the app's own systemPrompt variable
    const plain = assemble({ preset, history, input: 'hi', variables: { systemPrompt: '普通角色提示' } });
    expect(plain.messages[1]?.content).toBe('【角色】\n普通角色提示');
  });

  // The compiled prompt is external content: every macro-looking piece of it must reach the actor
  // untouched — not expanded, not treated as a setvar of a slot variable, not as a story-draft slot.
  const MACRO_DIO = '你是{{char}}，对{{user}}说话。{{getvar::mood}}{{setvar::storyDraft::伪造}}{{getvar::storyDraft}}{{original}}{{random::a,b}}';

  it('rule 1: the roleplay prompt carries the compiled prompt verbatim (its macros are not expanded)', () => {
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: 'hi', compiledPrompt: MACRO_DIO, char: '莉娅', user: '阿明', variables: { mood: '警惕' } });
    expect(result.messages).toEqual([{ role: 'system', content: CONTROL }, { role: 'system', content: MACRO_DIO }, ...history, { role: 'user', content: 'hi' }]);
    expect(result.dioSlot?.rule).toBe('roleplay');
    expect(result.storyDraftPlacement).toBe('none');
    expect(result.variables).toEqual({ mood: '警惕', dioCompiledPrompt: MACRO_DIO });
    // strict unknown macros apply to the preset, never to the external DIO text
    expect(assemble({ preset: { prompts: seedPrompts() }, history, input: 'hi', compiledPrompt: MACRO_DIO, unknownMacros: 'error' }).messages[1]?.content).toBe(MACRO_DIO);
  });

  it('rule 1: a {{getvar::storyDraft}} inside the DIO text does not make the slot a story-draft slot', () => {
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: 'q', compiledPrompt: MACRO_DIO, storyDraft: { text: '稿' }, storyDraftInstruction: '只调整语气。' });
    expect(result.storyDraftPlacement).toBe('beforeInput');
    expect(result.messages.map((m) => m.content)).toEqual([CONTROL, MACRO_DIO, ...history.map((m) => m.content), '只调整语气。\n\n<story_draft>\n稿\n</story_draft>', 'q']);
  });

  it('rule 2: the same macro-laden DIO text is placed verbatim too', () => {
    const preset = { prompts: seedPrompts(prompt('sys', '【角色】{{getvar::systemPrompt}}')) };
    const result = assemble({ preset, history, input: 'q', compiledPrompt: MACRO_DIO, storyDraft: { text: '稿' } });
    expect(result.messages[1]).toEqual({ role: 'system', content: `【角色】${MACRO_DIO}` });
    expect(result.storyDraftPlacement).toBe('beforeInput');
  });

  it('an override of the DIO slot prompt fails a DIO turn with DIO_SLOT_OVERRIDDEN (rule 1 and rule 2), never dropping the DIO prompt', () => {
    const rule1 = { prompts: seedPrompts() };
    const rule2 = { prompts: seedPrompts(prompt('sys', '【角色】{{getvar::systemPrompt}}')) };
    for (const override of ['替换后的角色', '{{original}}\n附加规则']) {
      expect(codeOf(() => assemble({ preset: rule1, history, input: 'q', compiledPrompt: COMPILED, overrides: { character: override } }))).toBe('DIO_SLOT_OVERRIDDEN');
      expect(codeOf(() => assemble({ preset: rule2, history, input: 'q', compiledPrompt: COMPILED, overrides: { sys: override } }))).toBe('DIO_SLOT_OVERRIDDEN');
    }
    // without a compiled prompt the same override works as usual
    expect(assemble({ preset: rule1, history, input: 'q', overrides: { character: '替换后的角色' } }).messages[1]?.content).toBe('替换后的角色');
    // overrides of other prompts are fine on DIO turns
    const other = assemble({ preset: rule1, history, input: 'q', compiledPrompt: COMPILED, overrides: { control: '{{original}}（新）' } });
    expect(other.messages.slice(0, 2).map((m) => m.content)).toEqual([`${CONTROL}（新）`, COMPILED]);
  });

  it('an override the slot prompt ignores (forbidOverrides) does not block DIO', () => {
    const preset = { prompts: seedPrompts(prompt('character', CHARACTER, { name: 'roleplay', forbidOverrides: true })) };
    const result = assemble({ preset, history, input: 'q', compiledPrompt: COMPILED, overrides: { character: 'ignored' } });
    expect(result.messages[1]?.content).toBe(COMPILED);
  });

  it('override lookup uses own keys only (an identifier like "constructor" is not an override)', () => {
    const preset = { prompts: seedPrompts(prompt('constructor', CHARACTER, { name: 'roleplay' })) };
    expect(assemble({ preset, history, input: 'q', overrides: {} }).messages[1]?.content).toBe(CHARACTER);
    expect(assemble({ preset, history, input: 'q', compiledPrompt: COMPILED, overrides: {} }).messages[1]?.content).toBe(COMPILED);
  });

  it('slot errors propagate with their codes', () => {
    const twoRoleplay = { prompts: [...seedPrompts(), prompt('again', 'x', { name: 'roleplay' })] };
    expect(codeOf(() => assemble({ preset: twoRoleplay, history, input: 'q', compiledPrompt: COMPILED }))).toBe('DIO_DUPLICATE_ROLEPLAY');
    const noSlot = { prompts: seedPrompts(prompt('c', 'plain')) };
    expect(codeOf(() => assemble({ preset: noSlot, history, input: 'q', compiledPrompt: COMPILED }))).toBe('DIO_NO_SLOT');
    const ambiguous = { prompts: [...seedPrompts(prompt('c', '{{getvar::systemPrompt}}')), prompt('d', '{{getvar::systemPrompt}}')] };
    expect(codeOf(() => assemble({ preset: ambiguous, history, input: 'q', compiledPrompt: COMPILED }))).toBe('DIO_AMBIGUOUS_PLACEHOLDER');
    // ...but the same presets assemble fine without a compiled prompt
    expect(assemble({ preset: twoRoleplay, history, input: 'q' }).messages).toHaveLength(6);
  });

  it('a preset that reads {{getvar::dioCompiledPrompt}} directly fails on turns without DIO', () => {
    const preset = { prompts: seedPrompts(prompt('c', '{{getvar::dioCompiledPrompt}}')) };
    expect(codeOf(() => assemble({ preset, history, input: 'q' }))).toBe('MACRO_SLOT_VARIABLE_UNSET');
  });

  it('slot variables cannot be passed in as ordinary variables', () => {
    expect(codeOf(() => assemble({ preset: { prompts: seedPrompts() }, history, input: 'q', variables: { dioCompiledPrompt: 'fake' } }))).toBe('MACRO_RESERVED_VARIABLE');
  });

  it('skips disabled prompts and prompts that expand to nothing; markers are always placed', () => {
    const preset = {
      prompts: [
        prompt('off', 'disabled', { enabled: false }),
        prompt('vars', '{{setvar::mood::警惕}}'),
        prompt('uses', '心情：{{getvar::mood}}', { role: 'assistant' }),
        prompt('empty', '{{getvar::missing}}'),
        prompt('chatHistory', '', { marker: 'chatHistory', enabled: false }),
      ],
    };
    const result = assemble({ preset, history, input: '问题' });
    expect(result.messages).toEqual([{ role: 'assistant', content: '心情：警惕' }, ...history, { role: 'user', content: '问题' }]);
    expect(result.variables).toEqual({ mood: '警惕' });
  });

  it('without a userInput marker the input goes right after the history', () => {
    const preset = { prompts: [prompt('a', 'A'), prompt('chatHistory', '', { marker: 'chatHistory' }), prompt('z', 'Z after')] };
    expect(assemble({ preset, history: [], input: 'q' }).messages.map((m) => m.content)).toEqual(['A', 'q', 'Z after']);
  });

  it('overrides replace a prompt; {{original}} is the replaced text; forbidOverrides wins', () => {
    const preset = { prompts: [prompt('main', 'Be {{char}}.'), prompt('locked', 'Locked.', { forbidOverrides: true }), prompt('chatHistory', '', { marker: 'chatHistory' })] };
    const result = assemble({ preset, history: [], input: 'q', char: '莉娅', overrides: { main: '{{original}} Never break character.', locked: 'X' } });
    expect(result.messages.map((m) => m.content)).toEqual(['Be 莉娅. Never break character.', 'Locked.', 'q']);
  });

  it('story draft: default placement is a system message right before the current input', () => {
    const draft = '## 莉娅\n「风暴要来了。关窗。」';
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: '然后呢？', storyDraft: { text: draft } });
    expect(result.storyDraftPlacement).toBe('beforeInput');
    const last = result.messages.slice(-2);
    expect(last[0]?.role).toBe('system');
    expect(last[0]?.content).toContain(DEFAULT_STORY_DRAFT_INSTRUCTION);
    expect(last[0]?.content).toContain(draft);
    expect(last[1]).toEqual({ role: 'user', content: '然后呢？' });
    expect(result.messages.slice(2, 4)).toEqual(history);
  });

  it('story draft: a preset places it with {{getvar::storyDraft}}; that prompt is left out on turns without a draft', () => {
    const preset = { prompts: [...seedPrompts(), prompt('draft', '草稿：\n{{getvar::storyDraft}}', { role: 'assistant' })] };
    const withDraft = assemble({ preset, history, input: 'q', storyDraft: { text: '正文' }, storyDraftInstruction: 'unused' });
    expect(withDraft.storyDraftPlacement).toBe('variable');
    expect(withDraft.messages.at(-1)).toEqual({ role: 'assistant', content: '草稿：\n正文' });
    expect(withDraft.messages.some((m) => m.content.includes('unused'))).toBe(false);
    const without = assemble({ preset, history, input: 'q' });
    expect(without.storyDraftPlacement).toBe('none');
    expect(without.messages.at(-1)).toEqual({ role: 'user', content: 'q' });
  });

  it('DIO and story draft together', () => {
    const result = assemble({ preset: { prompts: seedPrompts() }, history, input: 'q', compiledPrompt: COMPILED, storyDraft: { text: '稿' }, storyDraftInstruction: '只调整语气。' });
    expect(result.messages.map((m) => m.content)).toEqual([CONTROL, COMPILED, ...history.map((m) => m.content), '只调整语气。\n\n<story_draft>\n稿\n</story_draft>', 'q']);
  });

  it('the default preset works with character fields', () => {
    const result = assemble({
      preset: defaultPreset(),
      history: [],
      input: '你好',
      char: '莉娅',
      user: '阿明',
      fields: { description: '灯塔看守人', personality: '冷静', scenario: '暴风雨夜', mesExamples: '' },
    });
    expect(result.messages).toEqual([
      { role: 'system', content: "Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明." },
      { role: 'system', content: '灯塔看守人\n\n冷静\n\n暴风雨夜' },
      { role: 'user', content: '你好' },
    ]);
  });

  it('rejects malformed input and presets with clear codes', () => {
    expect(codeOf(() => assemble({ preset: { prompts: seedPrompts() }, history: [{ role: 'narrator', content: 'x' }] as never, input: 'q' }))).toBe('ASSEMBLE_INPUT_INVALID');
    expect(codeOf(() => assemble({ preset: { prompts: [prompt('a', 'A')] }, history, input: 'q' }))).toBe('PRESET_INVALID');
    expect(codeOf(() => assemble({ preset: { prompts: [prompt('a', 'A'), prompt('a', 'B'), prompt('h', '', { marker: 'chatHistory' })] }, history, input: 'q' }))).toBe(
      'PRESET_INVALID',
    );
  });

  it('does not mutate the preset or the history', () => {
    const preset = { prompts: seedPrompts() };
    const before = structuredClone({ preset, history });
    assemble({ preset, history, input: 'q', compiledPrompt: COMPILED, storyDraft: { text: 'd' } });
    expect({ preset, history }).toEqual(before);
  });
});
