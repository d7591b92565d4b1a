import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { offlineModel } from '../src/index.js';
import { request, scheduleDioTool } from './helpers.js';

const COUNT = process.env.STRESS === '1' ? 5000 : 100;

const Schema = z.object({
  title: z.string().min(3).max(24),
  cast: z.array(z.object({ name: z.string(), role: z.enum(['lead', 'support']), weight: z.number().min(0).max(1) })).min(1).max(3),
  notes: z.string().nullable(),
  score: z.int().min(-3).max(3),
});
const jsonSchema = z.toJSONSchema(Schema);

const inputs = Array.from({ length: COUNT }, (_, index) =>
  index % 2 === 0 ? `玩家第${index}次行动：推开第${index % 7}扇门，${'雨'.repeat(index % 13)}` : `Move ${index}: open door ${index % 7} ${'rain '.repeat(index % 11)}`,
);

describe('stress: many distinct inputs', () => {
  it(`${COUNT} inputs: JSON always conforms and every stage is deterministic`, async () => {
    const a = offlineModel();
    const b = offlineModel();
    for (const input of inputs) {
      const messages = [
        { role: 'system' as const, content: `You are Lin Mo.\nName: Su Wan` },
        { role: 'user' as const, content: input },
      ];
      const json = await a.generate(request('story/director', messages, { json: { schema: jsonSchema } }));
      const parsed = Schema.safeParse(JSON.parse(json.text));
      expect(parsed.success, `${input}: ${json.text}`).toBe(true);
      for (const stage of ['actor', 'story/section', 'director']) {
        const req = request(stage, messages, { tools: [scheduleDioTool] });
        expect(await b.generate(req)).toEqual(await a.generate(req));
      }
    }
  });
});
