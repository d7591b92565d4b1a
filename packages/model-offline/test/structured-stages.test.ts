import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { offlineModel } from '../src/index.js';
import { request } from './helpers.js';

const model = offlineModel();

// Plausible shapes of the story pipeline's structured stages, written as the stages would.
const stageSchemas = {
  'story/research': z.object({
    queries: z.array(z.string().min(1).max(80)).min(1).max(5),
    facts: z.array(z.object({ source: z.string(), fact: z.string().min(3) })).max(8),
  }),
  'story/character': z.object({
    characters: z
      .array(
        z.object({
          name: z.string().min(1),
          goal: z.string().min(5).max(200),
          mood: z.enum(['calm', 'tense', 'angry', 'joyful']),
          intensity: z.int().min(1).max(10),
          speaks: z.boolean(),
        }),
      )
      .min(1)
      .max(4),
  }),
  'story/director': z.object({
    sections: z
      .array(
        z.object({
          id: z.string().regex(/^[a-z0-9-]+$/),
          title: z.string().min(2).max(40),
          focus: z.string(),
          beats: z.array(z.string()).min(2).max(3),
          weight: z.number().gt(0).lte(1),
        }),
      )
      .min(1)
      .max(6),
    tone: z.enum(['light', 'dark', 'neutral']).nullable(),
  }),
  'story/continuity': z.object({
    ok: z.boolean(),
    issues: z.array(z.object({ section: z.string(), problem: z.string(), severity: z.union([z.literal('minor'), z.literal('major')]) })),
    revisedAt: z.iso.datetime().optional(),
    note: z.string().max(12).nullable(),
  }),
} as const;

const messages = [
  { role: 'system' as const, content: 'You are Lin Mo, a wary detective.\nCharacters:\nName: Su Wan' },
  { role: 'user' as const, content: 'Lin Mo opens the letter from the harbour master.' },
];

describe('structured stages', () => {
  for (const [stage, schema] of Object.entries(stageSchemas)) {
    it(`${stage} returns JSON that parses with the stage's schema`, async () => {
      const response = await model.generate(request(stage, messages, { json: { schema: z.toJSONSchema(schema), name: 'out' } }));
      const parsed = schema.safeParse(JSON.parse(response.text));
      expect(parsed.success, parsed.success ? '' : z.prettifyError(parsed.error)).toBe(true);
    });
  }

  it('draws string content from the request', async () => {
    const schema = z.object({ name: z.string(), summary: z.string() });
    const response = await model.generate(request('story/character', messages, { json: { schema: z.toJSONSchema(schema) } }));
    const value = schema.parse(JSON.parse(response.text));
    expect(['Lin Mo', 'Su Wan']).toContain(value.name);
    expect(value.summary).toContain('harbour master');
  });

  it('handles Chinese input, tuples, refs, unions, nullable, multipleOf and length limits', async () => {
    const Item = z.object({ label: z.string().min(10).max(12) });
    const schema = z.object({
      pair: z.tuple([z.string(), z.int().min(5).max(5)]),
      either: z.union([z.number().multipleOf(3).min(7).max(20), z.string()]),
      maybe: z.string().nullable(),
      list: z.array(Item).min(3).max(3),
      again: Item,
      free: z.record(z.string(), z.string()),
      constant: z.literal('fixed'),
      exclusive: z.number().gt(0).lt(0.5),
    });
    const zhMessages = [
      { role: 'system' as const, content: '你是林默，一名侦探。' },
      { role: 'user' as const, content: '林默推开了港口的大门。' },
    ];
    const response = await model.generate(request('story/research', zhMessages, { json: { schema: z.toJSONSchema(schema) } }));
    const parsed = schema.safeParse(JSON.parse(response.text));
    expect(parsed.success, parsed.success ? '' : z.prettifyError(parsed.error)).toBe(true);
  });

  it('terminates on recursive schemas ($ref) with a valid value', async () => {
    const Node = z.object({
      name: z.string(),
      get children() {
        return z.array(Node).max(2);
      },
    });
    const response = await model.generate(request('story/director', messages, { json: { schema: z.toJSONSchema(Node) } }));
    const parsed = Node.safeParse(JSON.parse(response.text));
    expect(parsed.success, parsed.success ? '' : z.prettifyError(parsed.error)).toBe(true);
  });

  it('answers json: true (no schema) with a JSON object', async () => {
    const response = await model.generate(request('story/research', messages, { json: true }));
    expect(JSON.parse(response.text)).toMatchObject({ stage: 'story/research' });
  });
});
