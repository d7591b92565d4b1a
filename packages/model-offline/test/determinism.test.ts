import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { OFFLINE_MODEL_ID, offlineModel } from '../src/index.js';
import { request, scheduleDioTool } from './helpers.js';

const schema = z.toJSONSchema(z.object({ characters: z.array(z.object({ name: z.string(), mood: z.enum(['a', 'b', 'c']) })) }));

const cases = [
  request('actor', [
    { role: 'system', content: 'You are Lin Mo.' },
    { role: 'user', content: 'Where were you last night?' },
  ]),
  request('director', [{ role: 'user', content: '以后请叫我小林。' }], { tools: [scheduleDioTool] }),
  request('story/character', [{ role: 'user', content: 'The harbour at night.' }], { json: { schema } }),
  request('story/section', [{ role: 'user', content: '雨夜，港口。' }]),
  request('story/editor', [{ role: 'user', content: '## A\ntext' }]),
];

describe('determinism', () => {
  it.each(cases.map((req) => [req.meta.stage, req] as const))('%s: same input → same output, across instances', async (_stage, req) => {
    const first = await offlineModel().generate(req);
    const again = await offlineModel().generate({ ...req, signal: new AbortController().signal });
    expect(again).toEqual(first);
  });

  it('different input → different output', async () => {
    const model = offlineModel();
    const a = await model.generate(request('actor', [{ role: 'user', content: 'Where were you?' }]));
    const b = await model.generate(request('actor', [{ role: 'user', content: 'Who are you?' }]));
    expect(a.text).not.toBe(b.text);
  });

  it('reports id "offline" and deterministic usage estimates', async () => {
    const model = offlineModel();
    expect(model.id).toBe(OFFLINE_MODEL_ID);
    const response = await model.generate(request('actor', [{ role: 'user', content: 'abcdefgh' }]));
    expect(response.usage).toEqual({ inputTokens: 2, outputTokens: Math.ceil(response.text.length / 4) });
  });
});
