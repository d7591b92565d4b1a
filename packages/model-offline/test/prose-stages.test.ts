import { describe, expect, it } from 'vitest';
import { offlineModel } from '../src/index.js';
import { request } from './helpers.js';

const model = offlineModel();

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?。！？])\s*/u).filter((part) => part.trim() !== '');
}

describe('prose stages', () => {
  it('story/section answers the player input in 2–4 sentences naming the cast, without echoing the input', async () => {
    const response = await model.generate(
      request('story/section', [
        { role: 'system', content: 'Write one section.\nName: Lin Mo\nName: Su Wan' },
        { role: 'user', content: 'Open the sealed letter.' },
      ]),
    );
    expect(response.text).not.toContain('Open the sealed letter');
    expect(response.text).not.toContain('sealed letter');
    expect(response.text).toContain('Lin Mo');
    expect(response.text).toContain('Su Wan');
    const count = sentences(response.text).length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(4);
  });

  it('story/section answers Chinese input in Chinese without restating it', async () => {
    const response = await model.generate(
      request('story/section', [
        { role: 'system', content: '你是林默，一名侦探。' },
        { role: 'user', content: '打开那封密信。' },
      ]),
    );
    expect(response.text).toContain('林默');
    expect(response.text).not.toContain('打开那封密信');
    expect(response.text).not.toContain('密信');
    expect(response.text).not.toMatch(/[A-Za-z]/);
    const count = sentences(response.text).length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThanOrEqual(4);
  });

  it('story/editor returns the sections it received, cleaned, keeping ## headings', async () => {
    const draft = 'Edit these sections.\n\n##Harbour   \nLin Mo waits.  \n\n\n\n## Letter\nThe seal breaks.\n';
    const response = await model.generate(request('story/editor', [{ role: 'user', content: draft }]));
    expect(response.text).toBe('## Harbour\nLin Mo waits.\n\n## Letter\nThe seal breaks.');
  });

  it('dio/compile returns the merged prompt unchanged', async () => {
    const merged = '  Speak in short sentences.\n\nCall the player Captain.  ';
    const response = await model.generate(
      request('dio/compile', [
        { role: 'system', content: 'Merge the instructions.' },
        { role: 'user', content: merged },
      ]),
    );
    expect(response.text).toBe(merged);
  });

  it('an unknown stage gets a short deterministic text that says it is a simulation', async () => {
    const response = await model.generate(request('custom/thing', [{ role: 'user', content: 'hello there' }]));
    expect(response.text).toBe('(offline simulation: custom/thing) hello there');
    const zh = await model.generate(request('custom/thing', [{ role: 'user', content: '你好' }]));
    expect(zh.text).toBe('（离线模拟：custom/thing）你好');
  });
});
