import { describe, expect, it } from 'vitest';
import { plainTurnInput, TurnInputSchema } from '../src/turn/turn-input.js';
import { parseTurnInput } from '../src/turn/run-turn.js';

// Values that pass or fail each field's rule, so the combinations cover every check.
const SESSION_IDS = ['s1', 'a', 'x'.repeat(64), 'x'.repeat(65), 'S1', '../etc', '', '-s', 7];
const TEXTS = ['I enter the tavern', 'x', '', 'x'.repeat(100_000), 'x'.repeat(100_001), 42, null];
const TURN_IDS = [undefined, 't1', 'T.1:a-b_c', 'x'.repeat(128), 'x'.repeat(129), '.t', '', 5];
const STEPS = [undefined, 0, 3, -0, -1, 1.5, 2 ** 60, Number.NaN, '1'];

describe('parseTurnInput', () => {
  it('gives exactly what the schema gives, fields in its order, for every combination of good and bad fields', () => {
    let handByHand = 0;
    for (const sessionId of SESSION_IDS)
      for (const text of TEXTS)
        for (const turnId of TURN_IDS)
          for (const step of STEPS) {
            const input: Record<string, unknown> = { text, sessionId };
            if (turnId !== undefined) input.turnId = turnId;
            if (step !== undefined) input.step = step;
            const schema = TurnInputSchema.safeParse(input);
            const plain = plainTurnInput(input);
            if (plain) {
              handByHand += 1;
              expect(schema.success).toBe(true);
              expect(Object.entries(plain)).toEqual(Object.entries(schema.data!));
              expect(Object.is(plain.step, schema.data!.step)).toBe(true);
            }
            if (schema.success) expect(Object.entries(parseTurnInput(input))).toEqual(Object.entries(schema.data));
            else expect(() => parseTurnInput(input)).toThrow(expect.objectContaining({ code: 'KERNEL_TURN_INPUT_INVALID' }));
          }
    expect(handByHand).toBeGreaterThan(100);
  });

  it('leaves every other shape to the schema (more fields, undefined values, non-plain objects)', () => {
    const withUserId = { sessionId: 's1', text: 'hi', userId: 'u1' };
    expect(plainTurnInput(withUserId)).toBeUndefined();
    expect(parseTurnInput(withUserId)).toEqual(withUserId);
    expect(plainTurnInput({ sessionId: 's1', text: 'hi', turnId: undefined })).toBeUndefined();
    expect(parseTurnInput({ sessionId: 's1', text: 'hi', turnId: undefined })).toEqual({ sessionId: 's1', text: 'hi' });
    expect(() => parseTurnInput({ sessionId: 's1', text: 'hi', unknown: 1 })).toThrow(expect.objectContaining({ code: 'KERNEL_TURN_INPUT_INVALID' }));
    const bare = Object.assign(Object.create(null), { sessionId: 's1', text: 'hi' });
    expect(plainTurnInput(bare)).toBeUndefined();
    expect(parseTurnInput(bare)).toEqual({ sessionId: 's1', text: 'hi' });
    for (const odd of [null, 'text', ['s1', 'hi']]) expect(plainTurnInput(odd)).toBeUndefined();
  });

  it('hands back a new object, never the caller\'s', () => {
    const input = { sessionId: 's1', text: 'hi', step: 1 };
    const parsed = parseTurnInput(input);
    expect(parsed).not.toBe(input);
    expect(parsed).toEqual(input);
  });
});
