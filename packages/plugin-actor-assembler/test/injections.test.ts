import type { ChatMessage } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { assemble, importSillyTavernPreset, placeInjections } from '../src/index.js';
import { prompt } from './helpers.js';

const chat = (...contents: string[]): ChatMessage[] => contents.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }));
const texts = (messages: readonly ChatMessage[]) => messages.map((m) => `${m.role}:${m.content}`);

describe('placeInjections (SillyTavern order: depth, then order, then role)', () => {
  it('depth counts from the newest message: 0 after it, 1 before it, beyond the chat at its start', () => {
    const placed = placeInjections(chat('A', 'B', 'C'), [
      { content: 'd0', role: 'system', depth: 0 },
      { content: 'd1', role: 'system', depth: 1 },
      { content: 'd9', role: 'system', depth: 9 },
      { content: 'd3', role: 'system', depth: 3 },
    ]);
    expect(texts(placed)).toEqual(['system:d9', 'system:d3', 'user:A', 'assistant:B', 'system:d1', 'user:C', 'system:d0']);
  });

  it('depths count original messages only, not injected ones', () => {
    const placed = placeInjections(chat('A', 'B'), [
      { content: 'x', role: 'user', depth: 1 },
      { content: 'y', role: 'user', depth: 2 },
    ]);
    expect(texts(placed)).toEqual(['user:y', 'user:A', 'user:x', 'assistant:B']);
  });

  it('within a depth: lower orders first; within an order assistant, user, system (system closest to the end)', () => {
    const placed = placeInjections(chat('A'), [
      { content: 's100', role: 'system', depth: 0 },
      { content: 'u100', role: 'user', depth: 0 },
      { content: 'a100', role: 'assistant', depth: 0 },
      { content: 's50', role: 'system', depth: 0, order: 50 },
      { content: 'u200', role: 'user', depth: 0, order: 200 },
    ]);
    expect(texts(placed)).toEqual(['user:A', 'system:s50', 'assistant:a100', 'user:u100', 'system:s100', 'user:u200']);
  });

  it('same depth, order and role: one message, joined by newlines in preset order, extension prompts after', () => {
    const placed = placeInjections(chat('A'), [
      { content: 'card depth prompt', role: 'system', depth: 0, extension: true },
      { content: ' first ', role: 'system', depth: 0 },
      { content: 'second', role: 'system', depth: 0 },
    ]);
    expect(texts(placed)).toEqual(['user:A', 'system:first \nsecond\ncard depth prompt']);
  });

  it('an extension prompt joins order 100 even when preset prompts use other orders', () => {
    const placed = placeInjections(chat('A'), [
      { content: 'ext', role: 'system', depth: 0, extension: true },
      { content: 'o5', role: 'system', depth: 0, order: 5 },
    ]);
    expect(texts(placed)).toEqual(['user:A', 'system:o5', 'system:ext']);
  });

  it('an empty chat still receives depth-0 injections; empty texts are skipped; messages are reused, not copied', () => {
    expect(texts(placeInjections([], [{ content: 'only', role: 'system', depth: 0 }, { content: '', role: 'user', depth: 0 }]))).toEqual(['system:only']);
    const history = chat('A', 'B');
    const placed = placeInjections(history, [{ content: 'x', role: 'system', depth: 1 }]);
    expect(placed[0]).toBe(history[0]);
    expect(placed[2]).toBe(history[1]);
  });
});

describe('in-chat injections in assemble', () => {
  it('preset prompts with injectionDepth leave preset order and land in the chat, the input counting as the newest message', () => {
    const { messages } = assemble({
      preset: {
        prompts: [
          prompt('main', 'MAIN'),
          prompt('remind', 'Stay {{char}}.', { injectionDepth: 1, role: 'user' }),
          prompt('chatHistory', '', { marker: 'chatHistory' }),
          prompt('tail', 'TAIL'),
        ],
      },
      history: chat('A', 'B'),
      input: 'NOW',
      char: '莉娅',
    });
    expect(texts(messages)).toEqual(['system:MAIN', 'user:A', 'assistant:B', 'user:Stay 莉娅.', 'user:NOW', 'system:TAIL']);
  });

  it("the card's depth_prompt is an extension prompt at its depth, joined after preset injections of its role", () => {
    const { messages } = assemble({
      preset: { prompts: [prompt('note', 'NOTE', { injectionDepth: 0 }), prompt('chatHistory', '', { marker: 'chatHistory' })] },
      history: chat('A'),
      input: 'NOW',
      char: '莉娅',
      depthPrompt: { prompt: '{{char}} is tired.', depth: 0, role: 'system' },
    });
    expect(texts(messages)).toEqual(['user:A', 'user:NOW', 'system:NOTE\n莉娅 is tired.']);
  });

  it('a disabled injection is not placed; an imported SillyTavern in-chat prompt keeps depth and order', () => {
    const { preset } = importSillyTavernPreset({
      prompts: [
        { identifier: 'chatHistory', name: 'Chat History', marker: true },
        { identifier: 'a', name: 'a', role: 'system', content: 'deep', injection_position: 1, injection_depth: 3, injection_order: 7 },
        { identifier: 'b', name: 'b', role: 'system', content: 'off', injection_position: 1, injection_depth: 0 },
        { identifier: 'c', name: 'c', role: 'user', content: 'default depth', injection_position: 1 },
      ],
      prompt_order: [{ character_id: 100001, order: [{ identifier: 'chatHistory', enabled: true }, { identifier: 'a', enabled: true }, { identifier: 'b', enabled: false }, { identifier: 'c', enabled: true }] }],
    });
    expect(preset.prompts.find((p) => p.identifier === 'a')).toMatchObject({ injectionDepth: 3, injectionOrder: 7 });
    expect(preset.prompts.find((p) => p.identifier === 'c')).toMatchObject({ injectionDepth: 4 });
    const { messages } = assemble({ preset, history: chat('1', '2', '3', '4', '5'), input: '6' });
    // six chat messages (the input is the newest): depth 4 sits after "2", depth 3 after "3"
    expect(texts(messages)).toEqual(['user:1', 'assistant:2', 'user:default depth', 'user:3', 'system:deep', 'assistant:4', 'user:5', 'user:6']);
  });
});
