import { describe, expect, it } from 'vitest';
import { offlineModel, statesLastingRequirement } from '../src/index.js';
import { request, scheduleDioTool } from './helpers.js';

const model = offlineModel();

function directorRequest(text: string, tools = [scheduleDioTool]) {
  return request('director', [{ role: 'system', content: 'You are the director.' }, { role: 'user', content: text }], { tools });
}

const lasting = [
  '从现在起，你说话要用短句。',
  '以后请叫我小林。',
  '今后不要再提那件事。',
  '从今天开始，每次回答都加一句诗。',
  '你以后说话温柔一点。',
  '别再叫我主人了。',
  'From now on, speak like a pirate.',
  'Always answer in French.',
  'Please always call me Captain.',
  'Stop using so many adjectives.',
  'Every time you reply, end with a question.',
  'You must always stay in character.',
  'Going forward, keep your answers short.',
  '从现在起莉娅都用短句回答，少用比喻。',
  '从此以后不要再叫我少爷。',
  'From now on, call me Captain.',
];

const oneOff = [
  '今天天气怎么样？',
  '吃完饭以后我们去散步吧。',
  '我以前总是喜欢下雨天。',
  '他一直在门口等你。',
  '我永远爱你。',
  'What is the weather like today?',
  'I always liked rainy days.',
  "Don't stop believing.",
  'Tell me about the castle.',
  'Every time we meet, it rains.',
  'The bus stopped near the old bridge.',
  // A lasting marker alone is not a requirement: a question, a plan, a story (QA, t10-oneoff).
  '今后几天的天气会怎样？',
  '我们以后再聊灯塔的事吧。',
  '从此以后他们再也没见过面，这个故事你听过吗？',
  '你以后会离开灯塔吗？',
  '从此以后他再也不说话了。',
  '从现在起，你能一直陪着我吗？',
  'From now on, will you remember my name?',
  'From now on, things will be different.',
];

describe('director stage', () => {
  it.each(lasting)('calls schedule_dio for a lasting requirement: %s', async (text) => {
    expect(statesLastingRequirement(text)).toBe(true);
    const response = await model.generate(directorRequest(text));
    expect(response.toolCalls).toHaveLength(1);
    const call = response.toolCalls![0]!;
    expect(call.name).toBe('schedule_dio');
    expect(call.arguments).toEqual({});
    expect(call.id).toMatch(/^call_offline_[0-9a-f]{8}$/);
    expect(response.finishReason).toBe('tool-calls');
  });

  it.each(oneOff)('answers none for a one-off message: %s', async (text) => {
    expect(statesLastingRequirement(text)).toBe(false);
    const response = await model.generate(directorRequest(text));
    expect(response.toolCalls ?? []).toEqual([]);
    expect(response.text).toBe('none');
  });

  it('answers none when schedule_dio is not offered', async () => {
    const response = await model.generate(directorRequest('From now on, speak like a pirate.', []));
    expect(response.text).toBe('none');
    expect(response.toolCalls).toBeUndefined();
  });

  it('answers none after the tool result came back', async () => {
    const first = await model.generate(directorRequest('从现在起，你说话要用短句。'));
    const call = first.toolCalls![0]!;
    const followUp = request(
      'director',
      [
        { role: 'system', content: 'You are the director.' },
        { role: 'user', content: '从现在起，你说话要用短句。' },
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, content: JSON.stringify({ ok: true }) },
      ],
      { tools: [scheduleDioTool] },
    );
    const second = await model.generate(followUp);
    expect(second.text).toBe('none');
    expect(second.toolCalls).toBeUndefined();
  });

  it('looks only at the last user message, not earlier history', async () => {
    const response = await model.generate(
      request(
        'director',
        [
          { role: 'user', content: 'From now on, call me Captain.' },
          { role: 'assistant', content: 'Aye, Captain.' },
          { role: 'user', content: 'What is behind the door?' },
        ],
        { tools: [scheduleDioTool] },
      ),
    );
    expect(response.text).toBe('none');
  });
});
