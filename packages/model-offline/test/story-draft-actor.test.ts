import { describe, expect, it } from 'vitest';
import { offlineModel } from '../src/index.js';
import { toShortSentences } from '../src/short-sentences.js';
import { spokenLength } from '../src/text.js';
import { request } from './helpers.js';
import { storyDraftMessage } from './story-fixtures.js';

const model = offlineModel();

const DRAFT =
  '## 场景\n\n灯塔建于一百年前，塔高三十二米，灯油由镇上每月补给一次。你开口问道：“灯塔的灯为什么今晚这么暗？”Lia、Marco和Old Ren都转头看向你。\n\n## 人物反应\n\nLia抬起头：“灯塔的灯油只够再烧三夜。”Marco转过身来：“雾大的夜里，少打听为好。”';

function actorMessages(extraSystem: string[] = []) {
  return [
    { role: 'system' as const, content: 'Only write Lia’s lines and actions, in the language the player uses.' },
    { role: 'system' as const, content: '你是 Lia（莉娅），雾港的灯塔守护者。\nYou are Lia, the lighthouse keeper.' },
    ...extraSystem.map((content) => ({ role: 'system' as const, content })),
    { role: 'system' as const, content: storyDraftMessage(DRAFT) },
    { role: 'user' as const, content: '灯塔的灯为什么今晚这么暗？' },
  ];
}

/** Sentences of a reply outside headings; with `splitSpeakerTags`, a speaker tag ("X说：") is measured apart from its quote. */
function sentencesOf(text: string, splitSpeakerTags = true): string[] {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('')
    .split(splitSpeakerTags ? /(?<=[。！？.!?])|(?<=：)(?=“)/u : /(?<=[。！？.!?])/u)
    .map((sentence) => sentence.replace(/[“”]/gu, '').trim())
    .filter((sentence) => sentence !== '');
}

describe('actor with a <story_draft>', () => {
  it('delivers the draft body as the reply, never the instruction', async () => {
    const response = await model.generate(request('actor', actorMessages()));
    expect(response.text).toBe(DRAFT);
    expect(response.text).not.toContain('The story for this turn');
    expect(response.text).not.toContain('story_draft');
  });

  it('rewrites the draft into short sentences when a system message asks for them, keeping headings and spoken lines', async () => {
    const response = await model.generate(request('actor', actorMessages(['从现在起莉娅都用短句回答，少用比喻。'])));
    expect(response.text).not.toBe(DRAFT);
    expect(response.text.split('\n').filter((line) => line.startsWith('## '))).toEqual(['## 场景', '## 人物反应']);
    for (const line of ['灯塔的灯油只够再烧三夜', '灯塔的灯为什么今晚这么暗', 'Lia抬起头', 'Marco转过身来', '塔高三十二米']) expect(response.text).toContain(line);
    expect(sentencesOf(response.text, false).length).toBeLessThanOrEqual(8);
    for (const sentence of sentencesOf(response.text)) expect(spokenLength(sentence), sentence).toBeLessThanOrEqual(14);
  });

  it('a story that itself says "brief" does not switch on short sentences', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are Lin Mo.' },
      { role: 'system' as const, content: storyDraftMessage('Lin Mo reads the brief, slowly, line by line, and frowns at the last page.') },
      { role: 'user' as const, content: 'What does it say?' },
    ];
    const response = await model.generate(request('actor', messages));
    expect(response.text).toBe('Lin Mo reads the brief, slowly, line by line, and frowns at the last page.');
  });

  it('without a draft: in character, answers the last input, quotes no instruction text', async () => {
    const messages = actorMessages().filter((message) => !message.content.includes('<story_draft>'));
    const response = await model.generate(request('actor', messages));
    expect(response.text).toContain('Lia');
    // It answers the why-question in Chinese, in its own words: the player's line is not repeated.
    expect(response.text).toMatch(/因为|理由/);
    expect(response.text).not.toContain('灯塔的灯为什么今晚这么暗');
    expect(response.text).not.toContain('Only write');
  });
});

describe('toShortSentences', () => {
  it('splits Chinese clauses into sentences and keeps a speaker with their quote', () => {
    expect(toShortSentences('雾很大，钟声很远。Lia抬起头：“灯油，只够三夜。”')).toBe('雾很大。钟声很远。Lia抬起头：“灯油。只够三夜。”');
  });

  it('cuts English clauses to at most ten words', () => {
    const short = toShortSentences('The ship arrives at dawn with no crew and no flag and no name on the hull, and nobody on the pier knows why.');
    for (const sentence of short.split(/(?<=[.!?])\s+/)) expect(sentence.split(/\s+/).length).toBeLessThanOrEqual(10);
    expect(short).toContain('nobody on the pier knows why.');
  });

  it('over the cap, drops the echo of the player words first and keeps spoken lines', () => {
    const long = '甲走来，乙走来，丙走来，丁走来。你问道：“灯怎么了？”戊说：“灯油不够了。”己说：“风太大。”庚说：“快走。”辛说：“别怕。”';
    const short = toShortSentences(long, '灯怎么了？');
    expect(short).not.toContain('灯怎么了');
    for (const line of ['灯油不够了', '风太大', '快走', '别怕', '甲走来']) expect(short).toContain(line);
  });
});
