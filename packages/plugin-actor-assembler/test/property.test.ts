import type { ChatMessage } from '@troupe/kernel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type PromptEntry, assemble } from '../src/index.js';

const STRESS = process.env.STRESS === '1';
const runs = STRESS ? 5_000 : 200;
// 5 000 random presets take longer than the default 5 s on a shared machine; not a timing assertion.
const timeout = STRESS ? 300_000 : undefined;

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

// Markers no generated text can contain (fast-check's default strings are ASCII), so counting
// occurrences of them is exact.
const INPUT_TOKEN = '\u{E000}输入';
const DIO_TOKEN = '\u{E001}DIO';

describe('assembly properties', () => {
  it('never drops or reorders history messages, and places the input exactly once', () => {
    fc.assert(
      fc.property(presetArb, fc.array(messageArb, { maxLength: 40 }), textArb, fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (preset, history, rest, draft) => {
        const input = `${INPUT_TOKEN}${rest}`;
        const { messages } = assemble({ preset, history, input, ...(draft !== undefined ? { storyDraft: { text: draft } } : {}) });
        // the history appears as one contiguous run of the very same objects, in order
        const start = history.length === 0 ? 0 : messages.indexOf(history[0]!);
        expect(start).toBeGreaterThanOrEqual(0);
        expect(messages.slice(start, start + history.length)).toEqual(history);
        history.forEach((message, index) => {
          expect(messages[start + index]).toBe(message);
        });
        // the input token is in exactly one message, and that message is the verbatim input
        const carriers = messages.filter((m) => m.content.includes(INPUT_TOKEN));
        expect(carriers).toEqual([{ role: 'user', content: input }]);
        // without a userInput marker it goes behind the history (after the draft message, if any)
        if (history.length > 0 && !preset.prompts.some((p) => p.marker === 'userInput')) {
          expect(messages.indexOf(carriers[0]!)).toBe(start + history.length + (draft !== undefined ? 1 : 0));
        }
      }),
      { numRuns: runs },
    );
  }, timeout);

  it('with a DIO prompt, the history is still intact and the compiled prompt appears once, verbatim, where the slot is', () => {
    fc.assert(
      fc.property(presetArb, fc.array(messageArb, { maxLength: 20 }), textArb, (preset, history, rest) => {
        // random text (macros included) after the token: the slot must carry it unexpanded
        const compiled = `${DIO_TOKEN}${rest}`;
        const withSlot = { prompts: [{ identifier: 'slot', name: 'roleplay', role: 'system' as const, content: 'old' }, ...preset.prompts.map((p) => ({ ...p, name: p.name === 'roleplay' ? 'x' : p.name }))] };
        const { messages } = assemble({ preset: withSlot, history, input: 'q', compiledPrompt: compiled });
        const start = history.length === 0 ? 0 : messages.indexOf(history[0]!);
        expect(messages.slice(start, start + history.length)).toEqual(history);
        expect(messages.filter((m) => m.content.includes(DIO_TOKEN))).toEqual([{ role: 'system', content: compiled }]);
        // the slot is the first prompt, so the compiled prompt is the first message
        expect(messages[0]).toEqual({ role: 'system', content: compiled });
      }),
      { numRuns: runs },
    );
  }, timeout);
});
