import { describe, expect, it } from 'vitest';
import { expandMacros } from '../../src/index.js';
import { ST_CASES } from './st-cases.js';

describe("SillyTavern's MacroEngine cases", () => {
  it.each(ST_CASES.map((testCase) => [`${testCase.group}: ${testCase.name}`, testCase] as const))('%s', (_title, testCase) => {
    const variables = new Map(Object.entries(testCase.local ?? {}));
    const globalVariables = new Map(Object.entries(testCase.global ?? {}));
    expect(expandMacros(testCase.input, { user: 'User', char: 'Character', variables, globalVariables })).toBe(testCase.expected);
  });

  it('covers every ported case', () => {
    // A guard against accidentally dropping cases from the table.
    expect(ST_CASES.length).toBeGreaterThanOrEqual(250);
  });
});
