import { describe, expect, it } from 'vitest';
import { HISTORY_PREVIEW_CHARS, itemizePrompt, PREVIEW_CHARS } from '../src/prompt/prompt-blocks.js';

// How the prompt itemization tells the blocks of an actor prompt apart (the API test
// web-api-prompt-itemization.test.ts proves it on real turns).

const count = (message: { content: string }) => message.content.length;

describe('itemizePrompt', () => {
  it('labels input, history, world info, DIO, story draft, the continued reply and the preset’s prompts', () => {
    const messages = [
      { role: 'system' as const, content: 'You are Lia, a harbour keeper.' },
      { role: 'system' as const, content: 'DIO-COMPILED: Lia never lies about the tide.' },
      { role: 'system' as const, content: '[World info]\nThe lighthouse burns whale oil.' },
      { role: 'user' as const, content: 'Hello there, Lia.' },
      { role: 'assistant' as const, content: 'Lia: Evening, traveller. The tide is low.' },
      { role: 'system' as const, content: 'Story draft:\nSCENE-DRAFT the fog rolls in over the quay.' },
      { role: 'user' as const, content: 'Traveler: Is there a boat tonight?' },
      { role: 'assistant' as const, content: 'Not tonight,' },
    ];
    const blocks = itemizePrompt(
      messages,
      {
        input: 'Is there a boat tonight?',
        history: [
          { role: 'user', content: 'Hello there, Lia.' },
          { role: 'assistant', content: 'Evening, traveller. The tide is low.' },
        ],
        continued: 'Not tonight,',
        worldInfo: ['The lighthouse burns whale oil.'],
        dioCompiledPrompt: 'DIO-COMPILED: Lia never lies about the tide.',
        storyDraft: 'SCENE-DRAFT the fog rolls in over the quay.',
      },
      count,
    );
    expect(blocks.map((block) => block.source)).toEqual(['prompt', 'dio', 'worldInfo', 'history', 'history', 'storyDraft', 'input', 'continuation']);
    expect(blocks.map((block) => block.tokens)).toEqual(messages.map((message) => message.content.length));
    expect(blocks.map((block) => block.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps a short start of history blocks and a longer one of the others, saying when it cut', () => {
    const long = 'x'.repeat(2000);
    const [history, prompt] = itemizePrompt(
      [
        { role: 'user', content: long },
        { role: 'system', content: long },
        { role: 'user', content: 'now' },
      ],
      { input: 'now', history: [{ role: 'user', content: long }] },
      count,
    );
    expect(history).toMatchObject({ source: 'history', chars: 2000, truncated: true });
    expect(history?.preview).toHaveLength(HISTORY_PREVIEW_CHARS);
    expect(prompt).toMatchObject({ source: 'prompt', chars: 2000, truncated: true });
    expect(prompt?.preview).toHaveLength(PREVIEW_CHARS);
  });

  it('never mistakes a short world-info entry that happens to appear in a prompt', () => {
    const [block] = itemizePrompt([{ role: 'system', content: 'Lia is a keeper.' }], { input: '', history: [], worldInfo: ['Lia'] }, count);
    expect(block?.source).toBe('prompt');
  });
});
