import type { ChatMessage } from '@troupe/kernel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PromptEntry, assemble } from '../src/index.js';

const STRESS = process.env.STRESS === '1';
const runs = STRESS ? 5_000 : 200;

const textArb = fc.oneof(fc.string(), fc.constantFrom('{{char}}', '{{getvar::x}}', '{{setvar::x::{{user}}}}', '莉娅「你好」', '{{getvar::systemPrompt}}'));
const messageArb: fc.Arbitrary<ChatMessage> = fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: textArb }) as fc.Arbitrary<ChatMessage>;
const promptArb = fc.record({
  content: textArb,
  role: fc.constantFrom('system', 'user', 'assistant'),
  enabled: fc.option(fc.boolean(), { nil: undefined }),
});

// A preset: random prompts around exactly one history marker, an optional input marker.
const presetArb = fc
  .tuple(fc.array(promptArb, { maxLength: 12 }), fc.nat(), fc.option(fc.nat(), { nil: undefined }))
  .map(([items, historyAt, inputAt]) => {
    const prompts: PromptEntry[] = items.map((item, index) => ({ identifier: `p${index}`, name: `p${index}`, ...item }));
    prompts.splice(historyAt % (prompts.length + 1), 0, { identifier: 'chatHistory', name: 'h', role: 'system', content: '', marker: 'chatHistory' });
    if (inputAt !== undefined) prompts.splice(inputAt % (prompts.length + 1), 0, { identifier: 'userInput', name: 'i', role: 'user', content: '', marker: 'userInput' });
    return { prompts };
  });

describe('assembly properties', () => {
  it('never drops or reorders history messages, and places the input exactly once', () => {
    fc.assert(
      fc.property(presetArb, fc.array(messageArb, { maxLength: 40 }), fc.string({ minLength: 1 }), fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (preset, history, input, draft) => {
        const { messages } = assemble({ preset, history, input, ...(draft !== undefined ? { storyDraft: { text: draft } } : {}) });
        // the history appears as one contiguous run of the very same objects, in order
        const start = history.length === 0 ? 0 : messages.indexOf(history[0]!);
        expect(start).toBeGreaterThanOrEqual(0);
        expect(messages.slice(start, start + history.length)).toEqual(history);
        history.forEach((message, index) => {
          expect(messages[start + index]).toBe(message);
        });
        const inputs = messages.filter((m) => m.role === 'user' && m.content === input && !history.includes(m));
        expect(inputs.length).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: runs },
    );
  });

  it('with a DIO prompt, the history is still intact and the compiled prompt appears exactly where the slot is', () => {
    fc.assert(
      fc.property(presetArb, fc.array(messageArb, { maxLength: 20 }), fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''), (preset, history, compiled) => {
        const withSlot = { prompts: [{ identifier: 'slot', name: 'roleplay', role: 'system' as const, content: 'old' }, ...preset.prompts.map((p) => ({ ...p, name: p.name === 'roleplay' ? 'x' : p.name }))] };
        const { messages } = assemble({ preset: withSlot, history, input: 'q', compiledPrompt: `DIO:${compiled}` });
        const start = history.length === 0 ? 0 : messages.indexOf(history[0]!);
        expect(messages.slice(start, start + history.length)).toEqual(history);
        expect(messages.some((m) => m.content.startsWith('DIO:'))).toBe(true);
      }),
      { numRuns: runs },
    );
  });
});
