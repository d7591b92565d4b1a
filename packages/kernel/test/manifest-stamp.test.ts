import { stampManifestRevision } from '@troupe/kernel/storage';
import { describe, expect, it } from 'vitest';

// What a stamp must always produce: the parsed object with `revision` set, pretty-printed.
const reference = (content: string, revision: number) => `${JSON.stringify({ ...(JSON.parse(content) as object), revision }, null, 2)}\n`;

// Manifests whose shape could mislead a stamp that skips the parse: nested `revision` members,
// revision first, last or absent, keys that only look like it, an own `__proto__`, escapes.
const manifests: Record<string, string> = {
  'the story plugin shape': JSON.stringify({ name: 'Bench', revision: 3, characters: [{ id: 'c0', name: 'C0', enabled: true }], pipeline: { maxParallel: 4 } }),
  'no revision yet': '{"name":"A","sections":[]}',
  'revision first': '{"revision":1,"name":"A"}',
  'nested revisions before the top-level one': JSON.stringify({ history: { revision: 7, list: [{ revision: 8 }] }, meta: { '  "revision": ': 1 }, revision: 2 }),
  'a nested revision and none at the top': JSON.stringify({ a: { revision: 5 } }),
  'keys that only start like it': JSON.stringify({ revisions: [1, 2], revision_note: 'x', 'revision"': 3, revision: 4 }),
  'an own __proto__ key': '{"__proto__":{"revision":9},"revision":1,"name":"p"}',
  'escapes and line breaks in strings': JSON.stringify({ name: 'line\nbreak "revision": 1\n  "revision": 2', revision: 3, text: '雾\u2028' }),
  'written by hand, one line': '{ "name" : "hand" , "revision" : 12 }',
  'a number revision with a fraction': '{"name":"f","revision":1.5}',
};

describe('stampManifestRevision', () => {
  it('gives the parsed manifest with the new revision, pretty-printed, however often a text is stamped again', () => {
    for (const [label, original] of Object.entries(manifests)) {
      let text = original;
      // Stamping the store's own output again and again (every commit and settlement does).
      for (const revision of [1, 2, 10, 9, 123_456, 0, -3, 2 ** 40, 11]) {
        const expected = reference(text, revision);
        text = stampManifestRevision(text, revision);
        expect(text, `${label} at revision ${revision}`).toBe(expected);
      }
      // A revision that is not a safe integer (never stored, but the result must still be right).
      expect(stampManifestRevision(text, 1.25), label).toBe(reference(text, 1.25));
      expect(stampManifestRevision(text, 2 ** 60), label).toBe(reference(text, 2 ** 60));
    }
  });

  it('sees a stamped text that the player edited afterwards as new', () => {
    const stamped = stampManifestRevision(manifests['the story plugin shape']!, 5);
    const edited = stamped.replace('"Bench"', '"Renamed"');
    expect(stampManifestRevision(edited, 6)).toBe(reference(edited, 6));
    expect(JSON.parse(stampManifestRevision(edited, 6))).toMatchObject({ name: 'Renamed', revision: 6 });
    // The same digits elsewhere in the text are left alone.
    const withDigits = stampManifestRevision(stamped.replace('"maxParallel": 4', '"maxParallel": 5'), 5);
    expect(JSON.parse(stampManifestRevision(withDigits, 7))).toMatchObject({ revision: 7, pipeline: { maxParallel: 5 } });
  });

  it('returns content that is not a JSON object unchanged', () => {
    for (const content of ['not json', '[1,2]', 'null', '"text"', '']) expect(stampManifestRevision(content, 4)).toBe(content);
  });
});
