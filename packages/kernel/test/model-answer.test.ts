import { extractJson, stripReasoning } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';

// The one reader of model answers: the director's JSON decision, the model adapters' JSON output
// and the DIO service's compile checks all go through these two helpers.
describe('stripReasoning', () => {
  it('removes think blocks, everything before a bare closing tag, and everything after an unclosed one', () => {
    expect(stripReasoning('<think>plan it</think>\nThe answer.')).toBe('The answer.');
    expect(stripReasoning('A <THINK>aside</Think> and <think>more</think> text')).toBe('A  and  text');
    expect(stripReasoning('the template opened it</think> Visible')).toBe('Visible');
    expect(stripReasoning('Visible <think>never closed {"tool": "x"}')).toBe('Visible');
    expect(stripReasoning('<think>only thoughts')).toBe('');
    expect(stripReasoning('  plain  ')).toBe('plain');
  });
});

describe('extractJson', () => {
  it('finds the first balanced object, skipping braces in strings and non-JSON braces', () => {
    expect(extractJson('{"a":1}')).toBe('{"a":1}');
    expect(extractJson('  [1,2] ')).toBe('[1,2]');
    expect(extractJson('Result: {"a":"}{"} and {"b":2}')).toBe('{"a":"}{"}');
    expect(extractJson('{unbalanced {"b":{"c":[1]}} tail')).toBe('{"b":{"c":[1]}}');
    expect(extractJson('```json\n{"x":"\\"quoted\\" }"}\n```')).toBe('{"x":"\\"quoted\\" }"}');
    expect(extractJson('Here you go: {"tool": "schedule_dio", "arguments": {"note": "a } b"}} Hope this helps {"tool": null}')).toBe(
      '{"tool": "schedule_dio", "arguments": {"note": "a } b"}}',
    );
    expect(extractJson('{"never": "closed"')).toBeUndefined();
    expect(extractJson('no json here')).toBeUndefined();
    expect(extractJson('')).toBeUndefined();
  });

  it('accepts a top-level array only when asked to', () => {
    expect(extractJson('a list [1, 2] only')).toBe('[1, 2]');
    expect(extractJson('a list [1, 2] only', { arrays: false })).toBeUndefined();
    expect(extractJson('[1, {"a": 2}]', { arrays: false })).toBe('{"a": 2}');
  });

  it('reads JSON past the reasoning when combined with stripReasoning', () => {
    const answer = '<think>maybe {"tool": "wrong"}</think>\n```json\n{"requirements": [{"index": 1, "kept": true}]}\n```';
    expect(extractJson(stripReasoning(answer))).toBe('{"requirements": [{"index": 1, "kept": true}]}');
    expect(extractJson(stripReasoning('{"tool": "visible"} <think>{"tool": "hidden"}'))).toBe('{"tool": "visible"}');
  });
});
