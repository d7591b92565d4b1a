import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { plainCheckOf } from '../src/pipeline/plain-check.js';
import { parseJsonOutput } from '../src/pipeline/stage-call.js';
import { CharacterProposalSchema } from '../src/stages/character.js';
import { ContinuityResultSchema } from '../src/stages/continuity.js';
import { DirectorPlanSchema } from '../src/stages/director.js';
import { ResearchBriefSchema } from '../src/stages/research.js';

const STAGE_SCHEMAS = { research: ResearchBriefSchema, character: CharacterProposalSchema, director: DirectorPlanSchema, continuity: ContinuityResultSchema };

// A small deterministic generator of JSON values near the stage schemas' shapes: right and wrong
// types, empty and long strings and arrays, missing, extra and reordered keys.
function generator(seed: number) {
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const keys = ['facts', 'continuity', 'intent', 'action', 'dialogue', 'beats', 'sectionNotes', 'sectionId', 'note', 'publicEvents', 'observations', 'characterId', 'proposals', 'extra'];
  const value = (depth: number): unknown => {
    const kind = depth > 3 ? pick(['string', 'empty', 'number', 'null']) : pick(['string', 'empty', 'number', 'null', 'array', 'array', 'object', 'object']);
    switch (kind) {
      case 'string':
        return 'x'.repeat(1 + Math.floor(random() * 3));
      case 'empty':
        return '';
      case 'number':
        return 7;
      case 'null':
        return null;
      case 'array':
        return Array.from({ length: pick([0, 1, 2, 21, 51]) }, () => (random() < 0.8 ? 'item' : value(depth + 1)));
      default:
        return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(keys), value(depth + 1)]));
    }
  };
  // A valid value of the schema's shape, then possibly one mutation.
  const near = (schema: z.ZodType): unknown => {
    const sample: Record<string, unknown> = {
      facts: ['a', 'b'],
      continuity: 'ok',
      intent: 'i',
      action: 'acts',
      dialogue: '',
      beats: ['beat'],
      sectionNotes: [{ sectionId: 's1', note: 'n' }],
      publicEvents: ['e'],
      observations: [{ characterId: 'c1', facts: ['f'] }],
      proposals: [],
    };
    const shape = Object.keys((schema as z.ZodObject).shape);
    const entries = shape.map((key) => [key, sample[key]] as [string, unknown]);
    const mutation = pick(['none', 'none', 'drop', 'extra', 'swap', 'replace', 'emptyArray', 'bigArray', 'emptyString']);
    if (mutation === 'drop') entries.splice(Math.floor(random() * entries.length), 1);
    if (mutation === 'extra') entries.push(['extra', value(2)]);
    if (mutation === 'swap' && entries.length > 1) entries.reverse();
    if (mutation === 'replace') (entries[Math.floor(random() * entries.length)] as [string, unknown])[1] = value(1);
    const arrayAt = entries.findIndex(([, v]) => Array.isArray(v));
    if (arrayAt >= 0 && mutation === 'emptyArray') (entries[arrayAt] as [string, unknown])[1] = [];
    if (arrayAt >= 0 && mutation === 'bigArray') (entries[arrayAt] as [string, unknown])[1] = Array.from({ length: 51 }, () => 'x');
    if (mutation === 'emptyString') {
      const at = entries.findIndex(([, v]) => typeof v === 'string');
      if (at >= 0) (entries[at] as [string, unknown])[1] = '';
    }
    return Object.fromEntries(entries);
  };
  return { value, near };
}

describe('the plain check of stage answers', () => {
  it('says yes only to values zod accepts and returns unchanged (same keys in the same order), for every stage schema', () => {
    const { value, near } = generator(11);
    for (const [stage, schema] of Object.entries(STAGE_SCHEMAS)) {
      const check = plainCheckOf(schema);
      expect(check, stage).toBeTypeOf('function');
      let yes = 0;
      let no = 0;
      for (let n = 0; n < 3000; n++) {
        const candidate = JSON.parse(JSON.stringify(n % 3 === 0 ? value(0) : near(schema))) as unknown;
        const parsed = schema.safeParse(candidate);
        if (check?.(candidate)) {
          yes++;
          expect(parsed.success, `${stage}: ${JSON.stringify(candidate)}`).toBe(true);
          expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(candidate));
        } else {
          no++;
          // A "no" is either a real failure or a value zod changes (stripped or reordered keys).
          if (parsed.success) expect(JSON.stringify(parsed.data)).not.toBe(JSON.stringify(candidate));
        }
      }
      expect(yes, stage).toBeGreaterThan(100);
      expect(no, stage).toBeGreaterThan(100);
    }
  });

  it('is not built for schema features it does not model (zod decides those alone)', () => {
    const unsupported = [
      z.object({ a: z.string() }).refine((v) => v.a !== 'x'),
      z.object({ a: z.string().optional() }),
      z.strictObject({ a: z.string() }),
      z.looseObject({ a: z.string() }),
      z.object({ a: z.coerce.string() }),
      z.object({ a: z.string().trim() }),
      z.object({ a: z.string().regex(/x/) }),
      z.object({ a: z.number() }),
      z.object({ a: z.array(z.string()).nonempty().transform((v) => v.length) }),
      z.string().default('x'),
    ];
    for (const schema of unsupported) expect(plainCheckOf(schema as z.ZodType)).toBeUndefined();
  });

  it('parseJsonOutput gives the same values and errors as zod alone: extra keys stripped, bad fields named', () => {
    expect(parseJsonOutput('{"intent":"i","action":"a","dialogue":"d"}', CharacterProposalSchema, 'story/character')).toEqual({ intent: 'i', action: 'a', dialogue: 'd' });
    const stripped = parseJsonOutput('{"intent":"i","action":"a","dialogue":"d","mood":"x"}', CharacterProposalSchema, 'story/character');
    expect(Object.keys(stripped)).toEqual(['intent', 'action', 'dialogue']);
    const reordered = parseJsonOutput('{"dialogue":"d","intent":"i","action":"a"}', CharacterProposalSchema, 'story/character');
    expect(Object.keys(reordered)).toEqual(['intent', 'action', 'dialogue']);
    expect(() => parseJsonOutput('{"intent":"i","action":"","dialogue":"d"}', CharacterProposalSchema, 'story/character')).toThrow(
      expect.objectContaining({ code: 'STORY_STAGE_OUTPUT_INVALID', field: 'action' }),
    );
  });
});
