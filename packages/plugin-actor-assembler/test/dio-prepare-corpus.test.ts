import { describe, expect, it } from 'vitest';
import { type DioAbsorbOption, type Preset, assemble, importSillyTavernPreset, prepareForDio, validatePreset } from '../src/index.js';
import { COMPILED, codeOf } from './helpers.js';
import { corpusJsonFiles } from './corpus.js';

// Text no preset contains, so any occurrence in the actor's messages is the card's old definition.
const FIELDS = { description: 'SENTINEL-DESCRIPTION', personality: 'SENTINEL-PERSONALITY', scenario: 'SENTINEL-SCENARIO', persona: 'the traveler', mesExamples: '' };
const OLD_TEXT = [FIELDS.description, FIELDS.personality, FIELDS.scenario];

function oldText(preset: Preset, compiledPrompt?: string): string[] {
  const { messages } = assemble({ preset, history: [], input: 'hello', char: 'Lia', user: 'Min', fields: FIELDS, ...(compiledPrompt ? { compiledPrompt } : {}) });
  if (compiledPrompt) expect(messages.map((m) => m.content)).toContain(compiledPrompt);
  return OLD_TEXT.filter((text) => messages.some((message) => message.content.includes(text)));
}

const files = corpusJsonFiles('presets');

describe('every corpus preset, prepared for DIO', () => {
  it('the corpus is there', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  describe.each(files)('%s', (_name, text) => {
    const { preset: original } = importSillyTavernPreset(text);

    it.each<[string, DioAbsorbOption]>([
      ['markers only', 'markers'],
      ['custom prompts absorbed', 'all'],
    ])('%s: takes the compiled prompt with no old character text left, or the report names each prompt that still carries it', (_label, absorb) => {
      const { preset, report } = prepareForDio(original, { absorb });
      if (report.status === 'refused') {
        expect(report.reason?.code).toMatch(/^DIO_/);
        expect(codeOf(() => assemble({ preset, history: [], input: 'q', compiledPrompt: COMPILED }))).toBe(report.reason?.code);
        return;
      }
      // Without DIO the prepared preset still renders the definition it rendered before.
      expect(oldText(preset)).toEqual(oldText(original));
      const left = oldText(preset, COMPILED);
      const named = new Set(report.remaining.map((finding) => finding.identifier));
      if (report.clean) expect(left).toEqual([]);
      // Turning off exactly the prompts the report names leaves none of the old text.
      const fixed = { ...preset, prompts: preset.prompts.map((p) => (named.has(p.identifier) ? { ...p, enabled: false } : p)) };
      expect(oldText(fixed, COMPILED)).toEqual([]);
      // The pre-flight of the prepared preset warns about the same prompts.
      const check = validatePreset(preset);
      expect(check.dio.accepts).toBe(true);
      expect(check.warnings.filter((w) => w.code === 'DIO_CHARACTER_TEXT_REMAINS').map((w) => w.path)).toEqual([...named]);
    });
  });
});
