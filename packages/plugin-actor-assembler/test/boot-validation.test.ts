import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inputSchema, turnPartsSchema } from '../src/assemble.js';
import { ActorAssemblerOptionsSchema, actorAssemblerPlugin, CONTEXT_TRIMMED_EVENT, PresetSchema } from '../src/index.js';
import { committedTurns, seedPrompts } from './helpers.js';

// The plugin's options and preset are checked once, at boot (issue 22): a turn checks only what
// it brings itself (context values, a turn's actor profile), once, however often the budget fit
// assembles. Counted on the schemas' own entry points, so a re-validation anywhere on the turn
// path shows.

afterEach(() => {
  vi.restoreAllMocks();
});

/** Spies on every way the assembler validates: its options, presets, a whole input, a turn's part. */
function validationSpies() {
  return {
    options: vi.spyOn(ActorAssemblerOptionsSchema['~standard'], 'validate'),
    preset: vi.spyOn(PresetSchema, 'safeParse'),
    wholeInput: vi.spyOn(inputSchema, 'safeParse'),
    turnParts: vi.spyOn(turnPartsSchema, 'safeParse'),
  };
}

const counts = (spies: ReturnType<typeof validationSpies>) => Object.fromEntries(Object.entries(spies).map(([name, spy]) => [name, spy.mock.calls.length]));

describe('the assembler validates its options and preset at boot only', () => {
  it.each([
    { preset: 'a preset in the options', options: { preset: { prompts: seedPrompts() } }, presetChecksAtBoot: 0 },
    { preset: 'the default preset', options: {}, presetChecksAtBoot: 1 },
  ])('$preset: checked at boot, never on a turn, even when the budget fit assembles again', async ({ options, presetChecksAtBoot }) => {
    const spies = validationSpies();
    const sessionLog = new MemorySessionLog();
    await sessionLog.append('s', committedTurns(300));
    const harness = await createHarness({
      model: new ScriptedChatModel(),
      sessionLog,
      // Small enough that the history has to be trimmed: the fit assembles more than once.
      scenario: { tokenBudget: { contextTokens: 2048, responseTokens: 256 } },
      plugins: [actorAssemblerPlugin(options)],
    });
    // The preset inside the options is checked by the options schema, not on its own.
    expect(counts(spies)).toEqual({ options: 1, preset: presetChecksAtBoot, wholeInput: 0, turnParts: 0 });
    for (const spy of Object.values(spies)) spy.mockClear();
    for (let turn = 0; turn < 3; turn++) {
      const result = await harness.runTurn({ sessionId: 's', text: `第${turn}个问题？` });
      expect(result.events.some((event) => event.type === CONTEXT_TRIMMED_EVENT)).toBe(true);
    }
    expect(counts(spies)).toEqual({ options: 0, preset: 0, wholeInput: 0, turnParts: 3 });
    await harness.close();
  });
});
