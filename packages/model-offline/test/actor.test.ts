import { describe, expect, it } from 'vitest';
import { offlineModel } from '../src/index.js';
import { request } from './helpers.js';

const model = offlineModel();

/** The longest run of the player's words (or characters, for Chinese) that the reply repeats. */
function longestEcho(input: string, reply: string): number {
  const chinese = /[\u3400-\u9fff]/.test(input);
  const units = chinese ? Array.from(input.replace(/[\s\p{P}]/gu, '')) : input.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter(Boolean);
  const haystack = chinese ? reply : ` ${reply.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, ' ')} `;
  let longest = 0;
  for (let start = 0; start < units.length; start++) {
    for (let end = start + 1; end <= units.length; end++) {
      const piece = chinese ? units.slice(start, end).join('') : ` ${units.slice(start, end).join(' ')} `;
      if (haystack.includes(piece)) longest = Math.max(longest, end - start);
      else break;
    }
  }
  return longest;
}

const spoken = (text: string) => [...text.matchAll(/["“]([^"”]*)["”]/gu)].map((match) => match[1] ?? '').join(' ');

describe('actor stage: roleplay', () => {
  it('answers in character, naming the character, without echoing the input', async () => {
    const input = 'Who sent the letter to the harbour master last night?';
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: 'You are Lin Mo, a detective in a rainy harbour town.' },
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Evening.' },
        { role: 'user', content: input },
      ]),
    );
    expect(response.text).toContain('Lin Mo');
    // Narration in asterisks, speech in quotes.
    expect(response.text).toMatch(/^\*[^*]+\*/);
    expect(spoken(response.text).length).toBeGreaterThan(10);
    expect(longestEcho(input, response.text)).toBeLessThanOrEqual(2);
    expect(response.text).not.toContain('Hello');
  });

  it('reads the character from SillyTavern-style main prompts', async () => {
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: "Write Seraphina's next reply in a fictional chat between Seraphina and Ash." },
        { role: 'user', content: 'Who are you?' },
      ]),
    );
    expect(response.text).toContain('Seraphina');
    expect(response.text).not.toContain('Ash');
  });

  it('never speaks the player\u2019s stage direction as dialogue', async () => {
    for (const input of ['*waves from the doorway and shakes off the rain* Is anyone here?', '（推开门，抖落身上的雨）有人在吗？']) {
      const response = await model.generate(request('actor', [{ role: 'system', content: 'You are Lin Mo.' }, { role: 'user', content: input }]));
      const direction = /^[*（]([^*）]+)[*）]/u.exec(input)?.[1] ?? '';
      expect(response.text).not.toContain(direction);
      expect(spoken(response.text)).not.toMatch(/waves|shakes off|推开门|抖落/);
      expect(longestEcho(input, response.text)).toBeLessThanOrEqual(2);
    }
  });

  it('answers different kinds of input differently', async () => {
    const reply = async (text: string) => (await model.generate(request('actor', [{ role: 'system', content: 'You are Lin Mo.' }, { role: 'user', content: text }]))).text;
    const answers = new Set(await Promise.all(['Hello!', 'Who are you?', 'Where is the ship?', 'Why did you stay?', 'The ship is gone.'].map(reply)));
    expect(answers.size).toBe(5);
    expect(await reply('Who are you?')).toMatch(/Lin Mo\. |Call me Lin Mo/);
    // A greeting that asks something is answered as the question.
    expect(await reply('Evening, Lin Mo. Who sent the letter?')).toMatch(/unnamed|expect/);
  });

  it('follows a short-sentence requirement aimed at the character it plays', async () => {
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

  it('applies a short-sentence requirement only to the character it names', async () => {
    const base = '你是 Lia（莉娅），雾港的灯塔守护者。\nYou are Lia.\n## 长期要求 / Lasting requirements\n';
    const ask = (requirement: string) =>
      model.generate(request('actor', [{ role: 'system', content: `${base}- ${requirement}` }, { role: 'user', content: '钟楼的钥匙在谁手里？' }]));
    const clauses = (text: string) => Math.max(...text.split(/[。！？”“*]/u).filter(Boolean).map((part) => Array.from(part).length));
    const forLia = await ask('从现在起莉娅都用短句回答，少用比喻。');
    const forMarco = await ask('从现在起Marco都用短句回答。');
    const forNobody = await ask('从现在起用短句回答。');
    expect(forLia.text).not.toBe(forMarco.text);
    expect(forNobody.text).toBe(forLia.text);
    expect(Array.from(forMarco.text).length).toBeGreaterThan(Array.from(forLia.text).length);
    expect(clauses(forLia.text)).toBeLessThanOrEqual(16);
    const english = await model.generate(
      request('actor', [
        { role: 'system', content: 'You are Lin Mo.\n- From now on, Marco speaks in short sentences.' },
        { role: 'user', content: 'Why did you stay in this town?' },
      ]),
    );
    expect(english.text.split(/\s+/).length).toBeGreaterThan(12);
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

  it('answers Chinese input in Chinese without echoing it, in short sentences when asked', async () => {
    const input = '那封信是谁寄来的？';
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: '你是林默，雨城的侦探。' },
        { role: 'system', content: '从现在起用短句回答。' },
        { role: 'user', content: input },
      ]),
    );
    expect(response.text).toContain('林默');
    expect(longestEcho(input, response.text)).toBeLessThanOrEqual(1);
    expect(response.text).not.toMatch(/[A-Za-z]/);
    const clauses = response.text.split(/[。！？”“*]/u).filter((part) => part !== '');
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

describe('actor stage: a delivered story draft with several speakers', () => {
  it('shortens only the lines of the character the requirement is for', async () => {
    const draft = '## 人物反应\n\nLia抬起头：“午夜的钟声已经连续响了五天，我数过，一次也没有停过。”Marco转过身来：“雾大的夜里，少打听为好，这是码头上的老规矩。”';
    const response = await model.generate(
      request('actor', [
        { role: 'system', content: '你是 Lia（莉娅），雾港的灯塔守护者。\nYou are Lia.\n## 长期要求 / Lasting requirements\n- 从现在起莉娅都用短句回答。' },
        { role: 'system', content: `<story_draft>\n${draft}\n</story_draft>` },
        { role: 'user', content: '钟声又响了吗？' },
      ]),
    );
    expect(response.text).toContain('“雾大的夜里，少打听为好，这是码头上的老规矩。”');
    expect(response.text).not.toContain('午夜的钟声已经连续响了五天，我数过');
    expect(response.text).toContain('午夜的钟声已经连续响了五天。');
  });
});
