import { describe, expect, it } from 'vitest';
import { assemble, findMacros, importSillyTavernPreset, supportedMacroNames } from '../src/index.js';
import { corpusJsonFiles } from './corpus.js';

const SUPPORTED = new Set(supportedMacroNames());
const FIELDS = { description: '{{char}}是灯塔看守人。', personality: '冷静', scenario: '暴风雨夜', persona: '旅人', mesExamples: '<START>\n{{user}}: 你好\n{{char}}: 嗯。' };
const HISTORY = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `第 ${i} 句` }));

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Supported macros still written out in a text, by name (`//` for comments). Unknown macros are
// allowed to stay (SillyTavern keeps them too); the test lists them so a reader sees them.
function rawSupported(text: string): string[] {
  const names = findMacros(text)
    .map((match) => match.name.replace(/^[#!?~>/\s]+/, '').split(/[\s:]/)[0] ?? '')
    .filter((name) => SUPPORTED.has(name));
  if (/\{\{\s*\/\//.test(text)) names.push('//');
  return names;
}

const files = corpusJsonFiles('presets').filter(([, text]) => parses(text));

describe('every valid-JSON corpus preset assembles with no supported macro left raw', () => {
  it('the corpus is there', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  describe.each(files)('%s', (_name, text) => {
    const imported = importSillyTavernPreset(text);

    it('no raw {{// …}}, {{trim}}, {{random}}, {{setvar}}, … in the actor messages; unknown macros are reported', () => {
      const result = assemble({ preset: imported.preset, history: HISTORY, input: '灯塔还亮着吗？', char: '莉娅', user: '阿明', fields: FIELDS, seed: 'corpus', chatId: 'corpus' });
      const left = result.messages.flatMap((message) => rawSupported(message.content));
      expect(left).toEqual([]);
      // every unknown macro that stayed as text was reported by name
      for (const message of result.messages) {
        for (const match of findMacros(message.content)) {
          const name = match.name.replace(/^[#!?~>/\s]+/, '').split(/[\s:]/)[0] ?? '';
          if (/^[a-z][\w-]*$/.test(name) && !SUPPORTED.has(name)) expect(result.unknownMacros.map((n) => n.toLowerCase())).toContain(name);
        }
      }
      // the history is all there, in order
      const contents = result.messages.map((m) => m.content);
      expect(HISTORY.every((m) => contents.some((c) => c.includes(m.content)))).toBe(true);
    });

    it('the importer names every top-level setting it does not apply', () => {
      const raw = JSON.parse(text) as Record<string, unknown>;
      const mentioned = imported.warnings.join('\n');
      const applied = ['squash_system_messages', 'assistant_prefill', 'assistant_impersonation', 'names_behavior', 'personality_format', 'scenario_format', 'wi_format', 'continue_nudge_prompt', 'continue_prefill', 'continue_postfix', 'new_chat_prompt', 'new_example_chat_prompt', 'impersonation_prompt', 'send_if_empty'];
      for (const key of Object.keys(raw)) {
        if (['prompts', 'prompt_order', 'name', 'extensions', ...applied].includes(key)) continue;
        expect(mentioned).toContain(key);
      }
    });
  });
});
