import { describe, expect, it } from 'vitest';
import { type Preset, type PromptEntry, assemble, importSillyTavernPreset, prepareForDio, validatePreset } from '../src/index.js';
import { COMPILED, codeOf, prompt } from './helpers.js';

// Distinct text per field, so a test can see exactly which old character text reached the actor.
const FIELDS = { description: 'DESC-莉娅是灯塔看守人', personality: 'PERS-冷静寡言', scenario: 'SCEN-暴风雨夜', mesExamples: '<START>\n{{char}}: EXAMPLE-嗯。' };
const OLD_TEXT = [FIELDS.description, FIELDS.personality, FIELDS.scenario];

function contents(preset: Preset, compiledPrompt?: string): string[] {
  return assemble({ preset, history: [{ role: 'assistant', content: '「进来吧。」' }], input: '你好', char: '莉娅', user: '阿明', fields: FIELDS, ...(compiledPrompt ? { compiledPrompt } : {}) }).messages.map((m) => m.content);
}

function oldTextIn(messages: readonly string[]): string[] {
  return OLD_TEXT.filter((text) => messages.some((message) => message.includes(text)));
}

// SillyTavern's Default preset, as the importer maps it: three definition markers in a row.
function stDefaultShape(overrides: Partial<Record<string, Partial<PromptEntry>>> = {}): Preset {
  const base: PromptEntry[] = [
    prompt('main', "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}.", { name: 'Main Prompt' }),
    prompt('worldInfoBefore', '{{getvar::worldInfoBefore}}', { name: 'World Info (before)' }),
    prompt('personaDescription', '{{persona}}', { name: 'Persona Description' }),
    prompt('charDescription', '{{description}}', { name: 'Char Description' }),
    prompt('charPersonality', '{{personality}}', { name: 'Char Personality' }),
    prompt('scenario', '{{scenario}}', { name: 'Scenario' }),
    prompt('enhanceDefinitions', 'If you have more knowledge of {{char}}, add to the lore.', { name: 'Enhance Definitions', enabled: false }),
    prompt('nsfw', '', { name: 'Auxiliary Prompt' }),
    prompt('dialogueExamples', '{{mesExamples}}', { name: 'Chat Examples' }),
    prompt('chatHistory', '', { name: 'Chat History', marker: 'chatHistory' }),
    prompt('jailbreak', '', { name: 'Post-History Instructions' }),
  ];
  return { name: 'ST Default', prompts: base.map((entry) => ({ ...entry, ...overrides[entry.identifier] })) };
}

describe('prepareForDio — a preset shaped like SillyTavern Default', () => {
  const { preset, report } = prepareForDio(stDefaultShape());

  it('adds one roleplay prompt where the description was, holding the whole definition, and turns the markers off', () => {
    expect(report.status).toBe('prepared');
    expect(report.roleplay).toMatchObject({ identifier: 'dioRoleplay', index: 3, role: 'system', placement: 'definition' });
    expect(report.roleplay?.absorbed.map((p) => p.identifier)).toEqual(['charDescription', 'charPersonality', 'scenario']);
    expect(report.disabled).toEqual(['charDescription', 'charPersonality', 'scenario']);
    expect(report.slot).toEqual({ rule: 'roleplay', index: 3, identifier: 'dioRoleplay' });
    expect(report.remaining).toEqual([]);
    expect(report.clean).toBe(true);
    const roleplay = preset.prompts[3];
    expect(roleplay).toEqual({ identifier: 'dioRoleplay', name: 'roleplay', role: 'system', content: '{{description}}\n\n{{personality}}\n\n{{scenario}}' });
    expect(preset.prompts.filter((p) => p.identifier.startsWith('char') || p.identifier === 'scenario').every((p) => p.enabled === false)).toBe(true);
  });

  it('without a DIO prompt the actor reads the same definition as before, now in one message', () => {
    const before = contents(stDefaultShape());
    const after = contents(preset);
    expect(after).toContain(`${FIELDS.description}\n\n${FIELDS.personality}\n\n${FIELDS.scenario}`);
    expect(after.join('\n')).toBe(before.join('\n').replace(`${FIELDS.description}\n${FIELDS.personality}\n${FIELDS.scenario}`, `${FIELDS.description}\n\n${FIELDS.personality}\n\n${FIELDS.scenario}`));
  });

  it('the pre-flight has no warnings, and with a DIO prompt the compiled prompt is the only character definition', () => {
    const check = validatePreset(preset);
    expect(check.dio).toMatchObject({ accepts: true, name: 'roleplay', slot: { identifier: 'dioRoleplay' } });
    expect(check.warnings).toEqual([]);
    expect(check.characterText).toEqual([]);
    const messages = contents(preset, COMPILED);
    expect(messages).toContain(COMPILED);
    expect(oldTextIn(messages)).toEqual([]);
    // the rest of the preset is kept: main prompt, examples (not part of the definition), history, input
    expect(messages[0]).toContain("Write 莉娅's next reply");
    expect(messages.some((m) => m.includes('EXAMPLE-嗯'))).toBe(true);
    expect(messages.slice(-2)).toEqual(['「进来吧。」', '你好']);
  });

  it('the unprepared preset fails DIO_NO_SLOT, and its pre-flight names the prompts carrying the definition', () => {
    const check = validatePreset(stDefaultShape());
    expect(check.dio).toMatchObject({ accepts: false, reason: { code: 'DIO_NO_SLOT' } });
    expect(check.characterText.map((f) => [f.identifier, f.fields, f.marker])).toEqual([
      ['charDescription', ['description'], true],
      ['charPersonality', ['personality'], true],
      ['scenario', ['scenario'], true],
    ]);
  });
});

describe('prepareForDio — a preset whose description marker is disabled', () => {
  const shape = stDefaultShape({ charDescription: { enabled: false } });
  const { preset, report } = prepareForDio(shape);

  it('holds only what the preset rendered (personality, scenario) at the first of them; the disabled marker stays off', () => {
    expect(report.status).toBe('prepared');
    expect(report.roleplay?.absorbed.map((p) => p.identifier)).toEqual(['charPersonality', 'scenario']);
    expect(report.roleplay?.index).toBe(4);
    expect(preset.prompts.find((p) => p.name === 'roleplay')?.content).toBe('{{personality}}\n\n{{scenario}}');
    expect(report.clean).toBe(true);
    expect(contents(preset)).not.toContain(FIELDS.description);
    const messages = contents(preset, COMPILED);
    expect(messages).toContain(COMPILED);
    expect(oldTextIn(messages)).toEqual([]);
    expect(validatePreset(preset).warnings).toEqual([]);
  });

  it('with every definition marker disabled: an empty roleplay prompt at the description marker, said so', () => {
    const off = stDefaultShape({ charDescription: { enabled: false }, charPersonality: { enabled: false }, scenario: { enabled: false } });
    const result = prepareForDio(off);
    expect(result.report.roleplay).toMatchObject({ placement: 'marker', index: 3, absorbed: [] });
    expect(result.report.notes[0]).toContain('empty "roleplay" prompt');
    expect(result.preset.prompts[3]).toMatchObject({ name: 'roleplay', content: '' });
    // without DIO nothing changes; with DIO the compiled prompt sits where the definition would be
    expect(contents(result.preset)).toEqual(contents(off));
    expect(contents(result.preset, COMPILED).slice(0, 3)).toEqual(["Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明.", COMPILED, 'EXAMPLE-嗯。']);
  });
});

describe('prepareForDio — custom prompts that embed the card fields', () => {
  // Lucid Loom's shape: markers off, the fields framed inside custom prompts, the persona between them.
  const shape: Preset = {
    prompts: [
      prompt('main', 'Weave the story.'),
      prompt('storyScenario', '## Starting Story Scenario\n\n{{scenario}}\n\n---', { name: 'Story Scenario' }),
      prompt('avatar', "## The Human's Avatar\n\n{{persona}}", { name: "Human's Avatar" }),
      prompt('form', "## Description of {{char}}'s Being:\n\n{{description}}\n\n---\n\n{{personality}}", { name: "Character's Form" }),
      prompt('cot', 'Think about {{char}} first.', { name: 'CoT' }),
      prompt('charDescription', '{{description}}', { name: 'Char Description', enabled: false }),
      prompt('charPersonality', '{{personality}}', { name: 'Char Personality', enabled: false }),
      prompt('chatHistory', '', { marker: 'chatHistory' }),
    ],
  };

  it('by default keeps them, adds an empty roleplay slot at the first, and names each one as a warning', () => {
    const { preset, report } = prepareForDio(shape);
    expect(report.status).toBe('prepared');
    expect(report.roleplay).toMatchObject({ index: 1, placement: 'definition', absorbed: [] });
    expect(report.clean).toBe(false);
    expect(report.remaining.map((f) => [f.identifier, f.fields])).toEqual([
      ['storyScenario', ['scenario']],
      ['form', ['description', 'personality']],
    ]);
    const check = validatePreset(preset);
    expect(check.warnings.map((w) => [w.code, w.path])).toEqual([
      ['DIO_CHARACTER_TEXT_REMAINS', 'storyScenario'],
      ['DIO_CHARACTER_TEXT_REMAINS', 'form'],
    ]);
    expect(check.warnings[1]?.message).toContain('"Character\'s Form" (form) still puts {{description}}, {{personality}}');
    // what the report names is exactly what remains: the old text is there with DIO, and only in those prompts
    const messages = contents(preset, COMPILED);
    expect(messages).toContain(COMPILED);
    expect(oldTextIn(messages)).toEqual(OLD_TEXT);
    const withoutNamed = { prompts: preset.prompts.map((p) => (report.remaining.some((f) => f.identifier === p.identifier) ? { ...p, enabled: false } : p)) };
    expect(oldTextIn(contents(withoutNamed, COMPILED))).toEqual([]);
  });

  it("absorb: 'all' moves them into the roleplay prompt: clean, and the report says their wording is replaced on DIO turns", () => {
    const { preset, report } = prepareForDio(shape, { absorb: 'all' });
    expect(report.roleplay?.absorbed.map((p) => [p.identifier, p.marker])).toEqual([
      ['storyScenario', false],
      ['form', false],
    ]);
    expect(report.clean).toBe(true);
    expect(report.notes.join(' ')).toContain('also replaces the wording of "Story Scenario", "Character\'s Form"');
    expect(report.notes.join(' ')).toContain(`"Human's Avatar" no longer stands between them`);
    expect(validatePreset(preset).warnings).toEqual([]);
    const messages = contents(preset, COMPILED);
    expect(oldTextIn(messages)).toEqual([]);
    expect(messages).toContain(COMPILED);
    expect(messages).toContain('Think about 莉娅 first.');
  });

  it('absorb by identifier moves only the prompts named', () => {
    const { report } = prepareForDio(shape, { absorb: ['form'] });
    expect(report.roleplay?.absorbed.map((p) => p.identifier)).toEqual(['form']);
    expect(report.remaining.map((f) => f.identifier)).toEqual(['storyScenario']);
  });

  it('a custom prompt using the card prompt macros is reported as card text, never moved', () => {
    const { report } = prepareForDio({ prompts: [...stDefaultShape().prompts, prompt('sys', '{{charPrompt}}\n{{charInstruction}}')] }, { absorb: 'all' });
    expect(report.remaining).toMatchObject([{ identifier: 'sys', kind: 'cardPrompt', fields: ['charPrompt', 'charInstruction'] }]);
  });

  it('an edited definition marker is a custom prompt: kept unless absorbed', () => {
    const edited = stDefaultShape({ charPersonality: { content: 'Personality: {{personality}}' } });
    expect(prepareForDio(edited).report.remaining.map((f) => f.identifier)).toEqual(['charPersonality']);
    expect(prepareForDio(edited, { absorb: 'all' }).report.clean).toBe(true);
  });
});

describe('prepareForDio — presets that already have a slot, or cannot take one', () => {
  it('a preset with its roleplay prompt is ready and unchanged; other carriers are reported', () => {
    const preset: Preset = { prompts: [prompt('c', '{{description}}', { name: 'roleplay' }), prompt('p', '{{personality}}', { name: 'Personality' }), prompt('chatHistory', '', { marker: 'chatHistory' })] };
    const result = prepareForDio(preset);
    expect(result.report.status).toBe('ready');
    expect(result.preset).toEqual(preset);
    expect(result.report.remaining.map((f) => f.identifier)).toEqual(['p']);
  });

  it('a rule-2 placeholder prompt that also renders card fields is reported: they stand next to the compiled prompt', () => {
    const preset: Preset = { prompts: [prompt('sys', '{{getvar::systemPrompt}}\n{{scenario}}'), prompt('chatHistory', '', { marker: 'chatHistory' })] };
    const result = prepareForDio(preset);
    expect(result.report.status).toBe('ready');
    expect(result.report.remaining.map((f) => [f.identifier, f.fields])).toEqual([['sys', ['scenario']]]);
    expect(validatePreset(preset).warnings.map((w) => w.code)).toEqual(['DIO_CHARACTER_TEXT_REMAINS']);
  });

  it.each([
    ['DIO_DUPLICATE_ROLEPLAY', [prompt('a', 'A', { name: 'roleplay' }), prompt('b', 'B', { name: 'roleplay' })]],
    ['DIO_AMBIGUOUS_PLACEHOLDER', [prompt('a', '{{getvar::systemPrompt}}'), prompt('b', '{{getvar::systemPrompt}}'), prompt('charDescription', '{{description}}')]],
    ['DIO_SLOT_DISABLED', [prompt('a', 'A', { name: 'roleplay', enabled: false }), prompt('charDescription', '{{description}}')]],
  ])('%s: refused, nothing changed, and a DIO turn still fails with the same code (no fallback, nothing appended)', (code, prompts) => {
    const preset: Preset = { prompts: [...prompts, prompt('chatHistory', '', { marker: 'chatHistory' })] };
    const result = prepareForDio(preset);
    expect(result.report).toMatchObject({ status: 'refused', reason: { code }, slot: undefined });
    expect(result.preset).toEqual(preset);
    expect(codeOf(() => assemble({ preset: result.preset, history: [], input: 'q', compiledPrompt: COMPILED }))).toBe(code);
  });

  it('rejects a malformed preset and keeps identifiers unique', () => {
    expect(codeOf(() => prepareForDio({ prompts: [] }))).toBe('PRESET_INVALID');
    const taken = stDefaultShape();
    const result = prepareForDio({ prompts: [prompt('dioRoleplay', 'mine', { name: 'Mine' }), ...taken.prompts] });
    expect(result.report.roleplay?.identifier).toBe('dioRoleplay2');
  });

  it('the import option prepares while importing and returns the report', () => {
    const file = {
      prompts: [
        { identifier: 'main', name: 'Main Prompt', role: 'system', content: 'M' },
        { identifier: 'charDescription', name: 'Char Description', marker: true },
        { identifier: 'chatHistory', name: 'Chat History', marker: true },
      ],
    };
    const plain = importSillyTavernPreset(file);
    expect(plain.dio).toBeUndefined();
    const imported = importSillyTavernPreset(file, { prepareForDio: true });
    expect(imported.dio).toMatchObject({ status: 'prepared', clean: true, disabled: ['charDescription'] });
    expect(imported.preset.prompts.map((p) => p.name)).toEqual(['Main Prompt', 'roleplay', 'Char Description', 'Chat History']);
  });
});

describe('validatePreset — character text through overrides', () => {
  it('an override that renders a card field, or the {{original}} of one, is a carrier too', () => {
    const { preset } = prepareForDio(stDefaultShape());
    expect(validatePreset(preset, { overrides: { main: 'Play {{char}}: {{description}}' } }).warnings).toMatchObject([{ code: 'DIO_CHARACTER_TEXT_REMAINS', path: 'main' }]);
    expect(validatePreset(preset, { overrides: { main: 'plain' } }).warnings).toEqual([]);
  });
});
