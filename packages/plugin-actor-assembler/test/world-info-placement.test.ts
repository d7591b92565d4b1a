import type { ActivatedWorldInfoEntry, ChatMessage } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { assemble, defaultPreset, importSillyTavernPreset, type Preset } from '../src/index.js';
import { fixtureText, prompt } from './helpers.js';

let next = 0;
function wi(content: string, position: ActivatedWorldInfoEntry['position'], extra: Partial<ActivatedWorldInfoEntry> = {}): ActivatedWorldInfoEntry {
  next++;
  return { id: `b.${next}`, book: 'b', uid: String(next), comment: '', content, position, order: 100, depth: 4, role: 'system', ...extra };
}

const history: ChatMessage[] = [
  { role: 'user', content: 'h1' },
  { role: 'assistant', content: 'h2' },
  { role: 'user', content: 'h3' },
  { role: 'assistant', content: 'h4' },
];
const contents = (messages: readonly ChatMessage[]) => messages.map((message) => message.content);

describe('world info placement', () => {
  it('SillyTavern preset: entries go into the worldInfoBefore / worldInfoAfter markers, joined by newlines', () => {
    const { preset } = importSillyTavernPreset(fixtureText('st-preset.json'));
    const result = assemble({
      preset,
      history: [],
      input: 'hi',
      char: 'Lia',
      fields: { description: 'DESCRIPTION' },
      worldInfo: { entries: [wi('B1 {{char}}', 'before'), wi('B2', 'before'), wi('A1', 'after')] },
    });
    const text = contents(result.messages);
    const before = text.indexOf('B1 Lia\nB2');
    const description = text.indexOf('DESCRIPTION');
    const after = text.indexOf('A1');
    expect(before).toBeGreaterThanOrEqual(0);
    expect(before).toBeLessThan(description);
    expect(after).toBeGreaterThan(description);
    expect(result.worldInfoPlacement).toMatchObject({ before: 'variable', after: 'variable' });
  });

  it('the default preset has the same two slots around the character prompt', () => {
    const result = assemble({ preset: defaultPreset(), history: [], input: 'hi', fields: { description: 'CHAR' }, worldInfo: { entries: [wi('BEFORE', 'before'), wi('AFTER', 'after')] } });
    expect(contents(result.messages).slice(1, 4).map((text) => text.trim())).toEqual(['BEFORE', 'CHAR', 'AFTER']);
  });

  it('a preset without the slots: system messages right before / after the roleplay prompt, so nothing is lost', () => {
    const preset: Preset = {
      prompts: [prompt('main', 'MAIN'), prompt('character', 'CHAR', { name: 'roleplay' }), prompt('chatHistory', '', { marker: 'chatHistory' }), prompt('userInput', '', { role: 'user', marker: 'userInput' })],
    };
    const result = assemble({ preset, history: [], input: 'hi', worldInfo: { entries: [wi('BEFORE', 'before'), wi('AFTER', 'after')] } });
    expect(contents(result.messages)).toEqual(['MAIN', 'BEFORE', 'CHAR', 'AFTER', 'hi']);
    expect(result.worldInfoPlacement).toMatchObject({ before: 'fallback', after: 'fallback' });
    const noRoleplay: Preset = { prompts: [prompt('main', 'MAIN'), prompt('chatHistory', '', { marker: 'chatHistory' })] };
    expect(contents(assemble({ preset: noRoleplay, history: [], input: 'hi', worldInfo: { entries: [wi('BEFORE', 'before'), wi('AFTER', 'after')] } }).messages)).toEqual(['MAIN', 'BEFORE', 'AFTER', 'hi']);
  });

  it('each example-message entry is its own example dialogue: top ones before the card examples (highest order first), bottom ones after (lowest first)', () => {
    // SillyTavern: checkWorldInfo unshifts EM entries in descending order; Generate unshifts top
    // blocks and pushes bottom ones, each through parseMesExamples (which adds a missing <START>).
    const entries = [wi('Lia: TOP 100', 'examplesTop', { order: 100 }), wi('Lia: TOP 200', 'examplesTop', { order: 200 }), wi('Lia: BOTTOM 100', 'examplesBottom', { order: 100 }), wi('<START>\nLia: BOTTOM 200', 'examplesBottom', { order: 200 })];
    for (const mesExamples of ['<START>\nMing: ex-hi\nLia: ex-hello', 'Ming: ex-hi\nLia: ex-hello']) {
      const preset: Preset = { ...defaultPreset(), settings: { newExampleChatPrompt: '[Example Chat]' } };
      const result = assemble({ preset, history: [], input: 'hi', char: 'Lia', user: 'Ming', fields: { mesExamples }, worldInfo: { entries } });
      const examples = result.messages.filter((message) => message.name?.startsWith('example_') || message.content === '[Example Chat]').map((message) => message.content);
      expect(examples).toEqual(['[Example Chat]', 'TOP 200', '[Example Chat]', 'TOP 100', '[Example Chat]', 'ex-hi', 'ex-hello', '[Example Chat]', 'BOTTOM 100', '[Example Chat]', 'BOTTOM 200']);
    }
  });

  it('example-message entries without an examples prompt go into after', () => {
    const preset: Preset = { prompts: [prompt('character', 'CHAR', { name: 'roleplay' }), prompt('worldInfoAfter', '{{getvar::worldInfoAfter}}'), prompt('chatHistory', '', { marker: 'chatHistory' })] };
    const noExamples = assemble({ preset, history: [], input: 'hi', worldInfo: { entries: [wi('AFTER', 'after'), wi('TOP', 'examplesTop')] } });
    expect(contents(noExamples.messages)).toEqual(['CHAR', 'AFTER\nTOP', 'hi']);
    expect(noExamples.worldInfoPlacement?.examples).toBe('after');
  });

  it('@depth entries: depth 0 after the input, depth n before the n newest messages (the input counts), with their role', () => {
    const result = assemble({
      preset: defaultPreset(),
      history,
      input: 'now',
      worldInfo: { entries: [wi('D0', 'atDepth', { depth: 0 }), wi('D2 user', 'atDepth', { depth: 2, role: 'user' }), wi('D9', 'atDepth', { depth: 9, role: 'assistant' })] },
    });
    const chat = result.messages.slice(result.messages.findIndex((m) => m.content === 'D9'));
    expect(chat.map((m) => `${m.role}:${m.content}`)).toEqual(['assistant:D9', 'user:h1', 'assistant:h2', 'user:h3', 'user:D2 user', 'assistant:h4', 'user:now', 'system:D0']);
  });

  it('one message per depth and role; at one depth the roles read assistant, user, system (ST)', () => {
    const result = assemble({
      preset: defaultPreset(),
      history,
      input: 'now',
      worldInfo: { entries: [wi('S1', 'atDepth', { depth: 1 }), wi('U1', 'atDepth', { depth: 1, role: 'user' }), wi('S2', 'atDepth', { depth: 1 }), wi('A1', 'atDepth', { depth: 1, role: 'assistant' })] },
    });
    expect(contents(result.messages).slice(-5)).toEqual(['h4', 'A1', 'U1', 'S1\nS2', 'now']);
  });

  it("author's-note entries sit at ST's default author's-note depth (4) as system, top before bottom, ahead of depth-4 system entries", () => {
    const result = assemble({
      preset: defaultPreset(),
      history,
      input: 'now',
      worldInfo: { entries: [wi('AN BOTTOM', 'authorsNoteBottom'), wi('AN TOP', 'authorsNoteTop'), wi('DEPTH 4', 'atDepth', { depth: 4 })] },
    });
    // Five chat messages (four earlier + the input): depth 4 is right after the oldest.
    const start = contents(result.messages).indexOf('h1');
    expect(contents(result.messages).slice(start)).toEqual(['h1', 'AN TOP\nAN BOTTOM\nDEPTH 4', 'h2', 'h3', 'h4', 'now']);
  });

  it('a userInput marker apart from the history: depth 0 still follows the input', () => {
    const preset: Preset = { prompts: [prompt('chatHistory', '', { marker: 'chatHistory' }), prompt('userInput', '', { role: 'user', marker: 'userInput' }), prompt('post', 'POST')] };
    const result = assemble({ preset, history: [{ role: 'assistant', content: 'h' }], input: 'now', worldInfo: { entries: [wi('D0', 'atDepth', { depth: 0 }), wi('D1', 'atDepth', { depth: 1 })] } });
    expect(contents(result.messages)).toEqual(['h', 'D1', 'now', 'D0', 'POST']);
  });

  it('no world info leaves the assembly exactly as before', () => {
    const base = assemble({ preset: defaultPreset(), history, input: 'now', fields: { description: 'CHAR' } });
    const empty = assemble({ preset: defaultPreset(), history, input: 'now', fields: { description: 'CHAR' }, worldInfo: { entries: [] } });
    expect(empty.messages).toEqual(base.messages);
    expect(base.worldInfoPlacement).toBeUndefined();
  });

  it('malformed world info is ASSEMBLE_INPUT_INVALID', () => {
    expect(() => assemble({ preset: defaultPreset(), history: [], input: 'x', worldInfo: { entries: [{ content: 1 } as never] } })).toThrow(expect.objectContaining({ code: 'ASSEMBLE_INPUT_INVALID' }));
  });
});
