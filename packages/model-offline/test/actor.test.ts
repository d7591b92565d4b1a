import { describe, expect, it } from 'vitest';
import { offlineModel } from '../src/index.js';
import { request } from './helpers.js';

const model = offlineModel();

describe('actor stage', () => {
  it('names the character and quotes the player input', async () => {
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: 'You are Lin Mo, a detective in a rainy harbour town.' },
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Evening.' },
        { role: 'user', content: 'Who sent the letter?' },
      ]),
    );
    expect(response.text).toContain('Lin Mo');
    expect(response.text).toContain('Who sent the letter');
    expect(response.text).not.toContain('Hello');
  });

  it('follows a short-sentence requirement from a system message', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are Lin Mo.' },
      { role: 'system' as const, content: 'Lasting requirement: answer in short sentences.' },
      { role: 'user' as const, content: 'Tell me everything you know about the harbour master and his ships.' },
    ];
    const response = await model.generate(request('actor', messages));
    const long = await model.generate(request('actor', [messages[0]!, messages[2]!]));
    const words = (text: string) => text.split(/(?<=[.!?])\s+/).map((sentence) => sentence.split(/\s+/).length);
    expect(Math.max(...words(response.text))).toBeLessThanOrEqual(8);
    expect(Math.max(...words(long.text))).toBeGreaterThan(8);
  });

  it('bases the reply on the story draft when one is present', async () => {
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: 'You are Lin Mo.' },
        { role: 'system', content: 'Story draft:\n## Harbour\nThe ship arrives at dawn with no crew. Nobody knows why.' },
        { role: 'user', content: 'What do you see?' },
      ]),
    );
    expect(response.text).toContain('The ship arrives at dawn with no crew');
  });

  it('does not mistake a Markdown character sheet for a story draft', async () => {
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: '## Character\nYou are Lin Mo. Secretly afraid of the sea.' },
        { role: 'user', content: 'Hello.' },
      ]),
    );
    expect(response.text).toContain('Lin Mo');
    expect(response.text).not.toContain('afraid of the sea');
  });

  it('answers Chinese input in Chinese, in short sentences when asked', async () => {
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: '你是林默，雨城的侦探。' },
        { role: 'system', content: '从现在起用短句回答。' },
        { role: 'user', content: '那封信是谁寄来的？' },
      ]),
    );
    expect(response.text).toContain('林默');
    expect(response.text).toContain('那封信是谁寄来的');
    expect(response.text).not.toMatch(/[A-Za-z]/);
    const clauses = response.text.split(/[。！？”“]/u).filter((part) => part !== '');
    expect(Math.max(...clauses.map((part) => Array.from(part).length))).toBeLessThanOrEqual(16);
  });

  it('stream yields text deltas that add up to generate(), then exactly one finish', async () => {
    const req = request('actor', [
      { role: 'system', content: '你是林默。' },
      { role: 'user', content: '你好，今晚的雨很大。' },
    ]);
    const expected = await model.generate(req);
    const parts = [];
    for await (const part of model.stream!(req)) parts.push(part);
    const last = parts[parts.length - 1];
    expect(last?.type).toBe('finish');
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
    const text = parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
    expect(text).toBe(expected.text);
    expect(last?.type === 'finish' && last.response).toEqual(expected);
    expect(parts.length).toBeGreaterThan(2);
  });
});
