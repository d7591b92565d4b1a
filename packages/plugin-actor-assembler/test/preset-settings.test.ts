import { readFileSync } from 'node:fs';
import type { ChatMessage } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { type AssembleInput, type PresetSettings, type PromptEntry, assemble, importSillyTavernPreset } from '../src/index.js';
import { corpusPath } from './corpus.js';
import { prompt } from './helpers.js';

const HISTORY: ChatMessage[] = [
  { role: 'user', content: '你好' },
  { role: 'assistant', content: '「进来吧。」' },
];
const base = (settings: PresetSettings, prompts: PromptEntry[] = [prompt('main', 'MAIN'), prompt('note', 'NOTE'), prompt('chatHistory', '', { marker: 'chatHistory' })], extra: Partial<AssembleInput> = {}) =>
  assemble({ preset: { prompts, settings }, history: HISTORY, input: '灯塔还亮着吗？', user: '阿明', char: '莉娅', ...extra }).messages;
const shown = (messages: readonly ChatMessage[]) => messages.map((m) => `${m.role}${m.name ? `(${m.name})` : ''}:${m.content}`);

describe('squash_system_messages', () => {
  it('merges consecutive unnamed system messages, keeps named ones and the new-chat prompt apart, drops empty ones', () => {
    const messages = base({ squashSystemMessages: true, newChatPrompt: '[Start a new Chat]' }, [prompt('main', 'MAIN'), prompt('note', 'NOTE'), prompt('chatHistory', '', { marker: 'chatHistory' }), prompt('tail', 'TAIL')]);
    expect(shown(messages)).toEqual(['system:MAIN\nNOTE', 'system:[Start a new Chat]', 'user:你好', 'assistant:「进来吧。」', 'user:灯塔还亮着吗？', 'system:TAIL']);
    expect(shown(base({ squashSystemMessages: false }))).toEqual(['system:MAIN', 'system:NOTE', 'user:你好', 'assistant:「进来吧。」', 'user:灯塔还亮着吗？']);
  });

  it('never merges the DIO slot into its neighbours', () => {
    const { messages } = assemble({
      preset: { prompts: [prompt('main', 'MAIN'), prompt('slot', 'old', { name: 'roleplay' }), prompt('after', 'AFTER'), prompt('chatHistory', '', { marker: 'chatHistory' })], settings: { squashSystemMessages: true } },
      history: [],
      input: 'q',
      compiledPrompt: 'DIO PROMPT',
    });
    expect(shown(messages)).toEqual(['system:MAIN', 'system:DIO PROMPT', 'system:AFTER', 'user:q']);
  });
});

describe('assistant_prefill and impersonation', () => {
  it('a normal turn ends with the (expanded) assistant prefill', () => {
    expect(shown(base({ assistantPrefill: '{{char}}：' })).at(-1)).toBe('assistant:莉娅：');
    expect(shown(base({ assistantPrefill: '' })).at(-1)).toBe('user:灯塔还亮着吗？');
  });
  it('impersonation uses impersonation_prompt and the impersonation prefill instead', () => {
    const messages = base({ assistantPrefill: 'NO', assistantImpersonation: '{{user}}：', impersonationPrompt: '[Write as {{user}}]' }, undefined, { generationType: 'impersonate', input: '' });
    expect(shown(messages).slice(-2)).toEqual(['system:[Write as 阿明]', 'assistant:阿明：']);
  });
});

describe('continue', () => {
  it('continue_nudge_prompt with {{lastChatMessage}}', () => {
    const messages = base({ continueNudgePrompt: '[Continue: {{lastChatMessage}}]', assistantPrefill: 'NO' }, undefined, { generationType: 'continue', input: '' });
    expect(shown(messages).slice(-2)).toEqual(['assistant:「进来吧。」', 'system:[Continue: 「进来吧。」]']);
  });
  it('the nudge ends the chat-history block: before the post-history instructions, after depth-0 injections', () => {
    // openai.js populateChatHistory: chatCompletion.insertAtEnd(continueMessage, 'chatHistory')
    const prompts = [prompt('main', 'MAIN'), prompt('chatHistory', '', { marker: 'chatHistory' }), prompt('depth0', 'AT DEPTH 0', { injectionDepth: 0 }), prompt('jailbreak', 'POST HISTORY')];
    const messages = base({ continueNudgePrompt: '[Continue: {{lastChatMessage}}]' }, prompts, { generationType: 'continue', input: '' });
    expect(shown(messages).slice(-4)).toEqual(['assistant:「进来吧。」', 'system:AT DEPTH 0', 'system:[Continue: 「进来吧。」]', 'system:POST HISTORY']);
  });
  it('continue_prefill moves the last reply to the end with continue_postfix', () => {
    const messages = base({ continuePrefill: true, continuePostfix: ' ', continueNudgePrompt: 'NO' }, undefined, { generationType: 'continue', input: '' });
    expect(shown(messages).slice(-2)).toEqual(['user:你好', 'assistant:「进来吧。」 ']);
  });
  it("continue_postfix follows the reply being continued with the nudge too, and is the join of the saved reply; a reply ending with a space gets none (script.js: `if (!cyclePrompt.endsWith(' '))`)", () => {
    const continued = (history: ChatMessage[], settings: PresetSettings) =>
      assemble({ preset: { prompts: [prompt('main', 'MAIN'), prompt('chatHistory', '', { marker: 'chatHistory' })], settings }, history, input: '', generationType: 'continue' });
    const nudged = continued(HISTORY, { continuePostfix: '\n', continueNudgePrompt: '[Continue: {{lastChatMessage}}]' });
    expect(shown(nudged.messages).slice(-2)).toEqual(['assistant:「进来吧。」\n', 'system:[Continue: 「进来吧。」]']);
    expect(nudged.continuationJoin).toBe('\n');
    const prefilled = continued(HISTORY, { continuePrefill: true, continuePostfix: '\n\n' });
    expect(shown(prefilled.messages).at(-1)).toBe('assistant:「进来吧。」\n\n');
    expect(prefilled.continuationJoin).toBe('\n\n');
    const spaced = continued([{ role: 'user', content: '你好' }, { role: 'assistant', content: 'Come in. ' }], { continuePostfix: '\n' });
    expect(shown(spaced.messages).at(-1)).toBe('assistant:Come in. ');
    expect(spaced.continuationJoin).toBe('');
    expect(continued(HISTORY, {}).continuationJoin).toBe('');
    expect(assemble({ preset: { prompts: [prompt('chatHistory', '', { marker: 'chatHistory' })], settings: { continuePostfix: ' ' } }, history: HISTORY, input: 'q' }).continuationJoin).toBeUndefined();
  });
  it("an imported SillyTavern preset without continue_postfix gets SillyTavern's default, a space", () => {
    const imported = (extra: Record<string, unknown>) => importSillyTavernPreset({ prompts: [], prompt_order: [], ...extra }).preset.settings?.continuePostfix;
    expect(imported({})).toBe(' ');
    expect(imported({ continue_postfix: '' })).toBe('');
    expect(imported({ continue_postfix: '\n' })).toBe('\n');
  });
});

describe('assistant_prefill follows SillyTavern: sent for Claude presets only', () => {
  it("a preset for another source keeps no prefill and says why; a Claude preset's prefill is sent; a preset that names no source keeps it", () => {
    const imported = (source: string | undefined) => importSillyTavernPreset({ prompts: [], prompt_order: [], assistant_prefill: 'PREFILL', assistant_impersonation: 'AS USER', ...(source === undefined ? {} : { chat_completion_source: source }) });
    const gemini = imported('makersuite');
    expect(gemini.preset.settings?.assistantPrefill).toBeUndefined();
    expect(gemini.preset.settings?.assistantImpersonation).toBeUndefined();
    expect(gemini.warnings.join('\n')).toMatch(/assistant_prefill.*Claude.*makersuite/);
    expect(imported('claude').preset.settings).toMatchObject({ assistantPrefill: 'PREFILL', assistantImpersonation: 'AS USER' });
    expect(imported(undefined).preset.settings).toMatchObject({ assistantPrefill: 'PREFILL' });
  });
  it('the real Gemini preset p10 sends no trailing assistant message', () => {
    const { preset } = importSillyTavernPreset(readFileSync(corpusPath('presets/p10-tgsjji.json'), 'utf8'));
    const { messages } = assemble({ preset, history: HISTORY, input: 'hello', char: 'Ming', user: 'You' });
    expect(messages.at(-1)?.role).not.toBe('assistant');
  });
});

describe('names_behavior', () => {
  const names = (namesBehavior: PresetSettings['namesBehavior'], extra: Partial<AssembleInput> = {}) => shown(base({ namesBehavior }, undefined, extra)).slice(2);
  it('none leaves messages alone; content prefixes names; completion sets the name field', () => {
    expect(names('none')).toEqual(['user:你好', 'assistant:「进来吧。」', 'user:灯塔还亮着吗？']);
    expect(names('content')).toEqual(['user:阿明: 你好', 'assistant:莉娅: 「进来吧。」', 'user:阿明: 灯塔还亮着吗？']);
    expect(names('completion')).toEqual(['user(阿明):你好', 'assistant(莉娅):「进来吧。」', 'user(阿明):灯塔还亮着吗？']);
  });
  it("imports SillyTavern's numbers: -1 none, 0 default (every shipped preset), 1 completion, 2 content", () => {
    // openai.js: character_names_behavior = { NONE: -1, DEFAULT: 0, COMPLETION: 1, CONTENT: 2 }
    const imported = (value: unknown) => importSillyTavernPreset({ prompts: [], prompt_order: [], names_behavior: value }).preset.settings?.namesBehavior;
    expect([-1, 0, 1, 2].map(imported)).toEqual(['none', 'default', 'completion', 'content']);
  });
  it("SillyTavern's default preset (names_behavior 0) names other speakers in a group chat", () => {
    const { preset } = importSillyTavernPreset(readFileSync(corpusPath('presets/p01-st-default.json'), 'utf8'));
    const history: ChatMessage[] = [{ role: 'assistant', content: 'hi', name: 'Seraphina' }];
    const chat = (group?: string[]) => assemble({ preset, history, input: 'hello', char: 'Seraphina', user: 'Ming', ...(group ? { group } : {}) }).messages.filter((m) => m.role !== 'system');
    expect(shown(chat(['Seraphina', 'Flux']))).toEqual(['assistant(Seraphina):Seraphina: hi', 'user:hello']);
    expect(shown(chat())).toEqual(['assistant(Seraphina):hi', 'user:hello']);
  });
  it('default names only non-user messages, and only in a group chat', () => {
    expect(names('default')).toEqual(['user:你好', 'assistant:「进来吧。」', 'user:灯塔还亮着吗？']);
    expect(names('default', { group: ['莉娅', '阿海'] })).toEqual(['user:你好', 'assistant:莉娅: 「进来吧。」', 'user:灯塔还亮着吗？']);
  });
});

describe('marker formats and example dialogues', () => {
  const markers = [
    prompt('charPersonality', '{{personality}}'),
    prompt('scenario', '{{scenario}}'),
    prompt('worldInfoBefore', '{{getvar::worldInfoBefore}}'),
    prompt('dialogueExamples', '{{mesExamples}}'),
    prompt('chatHistory', '', { marker: 'chatHistory' }),
  ];
  const settings: PresetSettings = {
    personalityFormat: "[{{char}}'s personality: {{personality}}]",
    scenarioFormat: '[Circumstances: {{scenario}}]',
    wiFormat: '{World info}\n{0}',
    newExampleChatPrompt: '[Example Chat]',
    newChatPrompt: '[Start a new Chat]',
  };
  const fields = { personality: '冷静', scenario: '暴风雨夜', mesExamples: '{{char}}: 灯还亮着。\n<START>\n{{user}}: 你是谁？\n{{char}}: 看灯塔的。\n多说一句。\n<start>\n{{char}}: 嗯。' };

  it('personality_format, scenario_format and wi_format wrap their markers; mes_example splits at <START> behind new_example_chat_prompt (text before the first <START> is a dialogue of its own, as parseMesExamples makes it)', () => {
    const messages = base(settings, markers, { fields, variables: { worldInfoBefore: '港口小镇' } });
    expect(shown(messages)).toEqual([
      "system:[莉娅's personality: 冷静]",
      'system:[Circumstances: 暴风雨夜]',
      'system:{World info}\n港口小镇',
      'system:[Example Chat]',
      'system(example_assistant):灯还亮着。',
      'system:[Example Chat]',
      'system(example_user):你是谁？',
      'system(example_assistant):看灯塔的。\n多说一句。',
      'system:[Example Chat]',
      'system(example_assistant):嗯。',
      'system:[Start a new Chat]',
      'user:你好',
      'assistant:「进来吧。」',
      'user:灯塔还亮着吗？',
    ]);
  });

  it('an empty field leaves its formatted marker out; an edited marker is not reformatted', () => {
    const messages = base(settings, [prompt('charPersonality', '{{personality}}'), prompt('scenario', 'Edited: {{scenario}}'), prompt('chatHistory', '', { marker: 'chatHistory' })], { fields: { personality: '', scenario: '夜' } });
    expect(shown(messages).slice(0, 2)).toEqual(['system:Edited: 夜', 'system:[Start a new Chat]']);
  });

  it('send_if_empty stands in for an empty input; without it nothing is sent for the input', () => {
    expect(shown(base({ sendIfEmpty: '[{{user}} waits]' }, undefined, { input: '' })).at(-1)).toBe('user:[阿明 waits]');
    expect(shown(base({}, undefined, { input: '' })).at(-1)).toBe('assistant:「进来吧。」');
  });
});

describe('the importer maps the settings', () => {
  it('reads every applied SillyTavern key, skips values of the wrong type with a warning', () => {
    const { preset, warnings } = importSillyTavernPreset({
      prompts: [{ identifier: 'chatHistory', name: 'Chat History', marker: true }],
      squash_system_messages: true,
      assistant_prefill: 'P',
      assistant_impersonation: 'I',
      names_behavior: 2,
      personality_format: 'PF',
      scenario_format: 'SF',
      wi_format: '{0}!',
      continue_nudge_prompt: 'CN',
      continue_prefill: false,
      continue_postfix: ' ',
      new_chat_prompt: 'NC',
      new_example_chat_prompt: 'NE',
      impersonation_prompt: 'IP',
      send_if_empty: 'SE',
      wrap_in_quotes: 'yes',
      temperature: 1,
    });
    expect(preset.settings).toEqual({
      squashSystemMessages: true,
      assistantPrefill: 'P',
      assistantImpersonation: 'I',
      namesBehavior: 'content',
      personalityFormat: 'PF',
      scenarioFormat: 'SF',
      wiFormat: '{0}!',
      continueNudgePrompt: 'CN',
      continuePrefill: false,
      continuePostfix: ' ',
      newChatPrompt: 'NC',
      newExampleChatPrompt: 'NE',
      impersonationPrompt: 'IP',
      sendIfEmpty: 'SE',
    });
    expect(warnings).toEqual([expect.stringContaining('No prompt_order'), expect.stringMatching(/Not applied by the assembler .*: wrap_in_quotes, temperature$/)]);
    expect(importSillyTavernPreset({ prompts: [], names_behavior: 7, squash_system_messages: 'yes' }).warnings).toEqual(
      expect.arrayContaining([expect.stringContaining('"squash_system_messages" has a value of the wrong type'), expect.stringContaining('"names_behavior" has a value of the wrong type')]),
    );
  });
});
