import { describe, expect, it } from 'vitest';
import { assemble, importSillyTavernPreset, setPromptEnabled, validatePreset } from '../src/index.js';
import { codeOf, fixtureText } from './helpers.js';

const presetText = fixtureText('st-preset.json');
const RULES_ID = '8f3c1a2e-6f0b-4a53-9d0e-2b7c5d4e1f90';

describe('importSillyTavernPreset', () => {
  it('uses the global prompt_order (100001): order, enabled flags, markers as macros', () => {
    const { preset, settings, warnings } = importSillyTavernPreset(presetText);
    expect(preset.prompts.map((p) => p.identifier)).toEqual([
      'main',
      'worldInfoBefore',
      'personaDescription',
      'charDescription',
      'charPersonality',
      'scenario',
      RULES_ID,
      'enhanceDefinitions',
      'nsfw',
      'worldInfoAfter',
      'dialogueExamples',
      'chatHistory',
      'd21b7e44-0c5a-4c1e-8a7b-93e0f1a2b3c4',
      'jailbreak',
    ]);
    const byId = new Map(preset.prompts.map((p) => [p.identifier, p]));
    expect(byId.get('charDescription')).toMatchObject({ content: '{{description}}', role: 'system', name: 'Char Description', enabled: true });
    expect(byId.get('worldInfoBefore')?.content).toBe('{{getvar::worldInfoBefore}}');
    expect(byId.get('chatHistory')).toMatchObject({ marker: 'chatHistory' });
    expect(byId.get('enhanceDefinitions')?.enabled).toBe(false);
    // the order's enabled flag wins over the prompt's own `enabled: false`
    expect(byId.get(RULES_ID)).toMatchObject({ enabled: true, name: '角色扮演规则' });
    expect(settings).toMatchObject({ temperature: 0.9, openai_model: 'gpt-4o-mini' });
    expect(settings).not.toHaveProperty('prompts');
    // the in-chat injection keeps its depth; the settings the assembler does not apply are named
    expect(byId.get('d21b7e44-0c5a-4c1e-8a7b-93e0f1a2b3c4')).toMatchObject({ injectionDepth: 2 });
    expect(preset.settings).toMatchObject({ namesBehavior: 'default', newChatPrompt: '[Start a new Chat]' });
    expect(warnings).toEqual([expect.stringMatching(/^Not applied by the assembler .*: chat_completion_source, openai_model, temperature, .*stream_openai$/)]);
  });

  it('round-trips into an assembly: markers become character fields, history and input in place', () => {
    const { preset } = importSillyTavernPreset(presetText);
    const result = assemble({
      preset,
      history: [{ role: 'assistant', content: '「进来吧。」' }],
      input: '你好',
      char: '莉娅',
      user: '阿明',
      fields: { description: '灯塔看守人', personality: '冷静', scenario: '暴风雨夜', persona: '旅人', mesExamples: '<START>\n{{char}}: 嗯。' },
      variables: { systemPrompt: '你是莉娅。', worldInfoBefore: '港口小镇' },
    });
    expect(result.messages.map((m) => m.content)).toEqual([
      "Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明.",
      '港口小镇',
      '旅人',
      '灯塔看守人',
      '冷静',
      '暴风雨夜',
      '你是莉娅。\n始终用中文回答，保持角色语气。',
      '嗯。', // the example dialogue, split at <START> (a system message named example_assistant)
      '[Start a new Chat]', // new_chat_prompt, first in the chat block
      '[Stay in character.]', // the depth-2 injection: deeper than the chat, so at its start
      '「进来吧。」',
      '你好',
    ]);
  });

  it('a typical ST preset has no "roleplay" prompt: DIO goes to its single {{getvar::systemPrompt}}', () => {
    const { preset } = importSillyTavernPreset(presetText);
    expect(validatePreset(preset).dio).toMatchObject({ accepts: true, slot: { rule: 'placeholder', identifier: RULES_ID } });
    const result = assemble({ preset, history: [], input: 'q', compiledPrompt: 'DIO：你是莉娅，只用短句。' });
    expect(result.messages.map((m) => m.content)).toContain('DIO：你是莉娅，只用短句。\n始终用中文回答，保持角色语气。');
  });

  it('keeps prompts missing from the order (disabled, at the end) and adds a missing chatHistory', () => {
    const { preset, warnings } = importSillyTavernPreset({
      name: '我的预设',
      prompts: [
        { identifier: 'main', name: 'Main', content: 'M' },
        { identifier: 'orphan', name: 'Orphan', content: 'O', role: 'user' },
        { identifier: 'main', name: 'Dup', content: 'D' },
        { identifier: 'strange', name: 'Strange marker', marker: true },
      ],
      prompt_order: [{ character_id: 100000, order: [{ identifier: 'main', enabled: true }, { identifier: 'ghost', enabled: true }, { identifier: 'strange' }] }],
    });
    expect(preset.name).toBe('我的预设');
    expect(preset.prompts.map((p) => [p.identifier, p.enabled])).toEqual([
      ['main', true],
      ['strange', true],
      ['orphan', false],
      ['chatHistory', undefined],
    ]);
    expect(warnings).toHaveLength(5);
    expect(setPromptEnabled(preset, 'orphan').prompts[2]?.enabled).toBe(true);
  });

  it('without prompt_order uses file order and each prompt\'s enabled flag', () => {
    const { preset } = importSillyTavernPreset({ prompts: [{ identifier: 'chatHistory', marker: true }, { identifier: 'a', content: 'A', enabled: false }] });
    expect(preset.prompts.map((p) => [p.identifier, p.enabled])).toEqual([
      ['chatHistory', true],
      ['a', false],
    ]);
  });

  it('rejects files that are not presets', () => {
    expect(codeOf(() => importSillyTavernPreset('{not json'))).toBe('IMPORT_JSON_INVALID');
    expect(codeOf(() => importSillyTavernPreset({ temperature: 1 }))).toBe('IMPORT_PRESET_INVALID');
    expect(codeOf(() => importSillyTavernPreset({ prompts: [{ identifier: 'x', role: 'narrator' }] }))).toBe('IMPORT_PRESET_INVALID');
    expect(codeOf(() => importSillyTavernPreset(`{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`))).toBe('IMPORT_TOO_LARGE');
  });
});
