import { contextKeys, definePlugin } from '@troupe/kernel';
import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { type DioAbsorbOption, type Preset, actorAssemblerPlugin, assemble, importSillyTavernPreset, prepareForDio, validatePreset } from '../src/index.js';
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

describe("the actor's messages in the kernel, for a prepared SillyTavern Default", () => {
  it('hold the compiled prompt and none of the old definition once the pre-flight has no warnings', async () => {
    const file = files.find(([name]) => name.includes('st-default'));
    expect(file).toBeDefined();
    const { preset, dio } = importSillyTavernPreset(file?.[1] ?? '', { prepareForDio: true });
    expect(dio?.clean).toBe(true);
    expect(validatePreset(preset).warnings).toEqual([]);
    const dioPrompt = definePlugin({
      name: 'test-dio-prompt',
      version: '0.0.0',
      setup(ctx) {
        ctx.hooks.preActor((_input, turn) => turn.set(contextKeys.dioCompiledPrompt, COMPILED));
      },
    });
    const { harness, model } = await createTestHarness({ plugins: [dioPrompt, actorAssemblerPlugin({ preset, char: 'Lia', user: 'Min', fields: FIELDS })] });
    try {
      await harness.runTurn({ sessionId: 's', text: 'hello' });
      const actor = model.callsFor('actor')[0]?.messages.map((message) => message.content) ?? [];
      expect(actor).toContain(COMPILED);
      expect(OLD_TEXT.filter((text) => actor.some((content) => content.includes(text)))).toEqual([]);
      expect(actor.at(-1)).toBe('hello');
    } finally {
      await harness.close();
    }
  });
});
