import { type ActivatedWorldInfo, contextKeys, definePlugin } from '@troupe/kernel';
import { ScriptedChatModel, createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { importCharacterBook, importWorldInfo, lorebookPlugin } from '../src/index.js';
import { book, fired, run } from './helpers.js';

const scanData = {
  personaDescription: 'Ming is a cartographer.',
  characterDescription: 'Lia keeps the lighthouse.',
  characterPersonality: 'stubborn',
  characterDepthPrompt: 'Mention the fog.',
  scenario: 'A winter night.',
  creatorNotes: 'Made for {{user}}.',
};

describe('matching card and persona fields (ST match* flags)', () => {
  it('are imported from world-info files (matchPersonaDescription, …) and cards (extensions.match_persona_description, …), in ST order', () => {
    const file = importWorldInfo({ entries: { '0': { key: ['a'], matchScenario: true, matchPersonaDescription: true }, '1': { key: ['b'] } } }).book;
    expect(file.entries.map((entry) => entry.matchSources)).toEqual([['personaDescription', 'scenario'], []]);
    const extensions = {
      match_persona_description: true,
      match_character_description: true,
      match_character_personality: true,
      match_character_depth_prompt: true,
      match_scenario: true,
      match_creator_notes: true,
    };
    const card = importCharacterBook({ entries: [{ keys: ['a'], content: 'x', extensions }] }).book;
    expect(card.entries[0]?.matchSources).toEqual(['personaDescription', 'characterDescription', 'characterPersonality', 'characterDepthPrompt', 'scenario', 'creatorNotes']);
  });

  it("an entry's keys are also matched against the fields it names, and only for that entry", () => {
    const books = [
      book([
        { key: ['lighthouse'], matchCharacterDescription: true, content: 'by description' },
        { key: ['lighthouse'], content: 'chat only' },
        { key: ['cartographer'], matchPersonaDescription: true, content: 'by persona' },
        { key: ['stubborn'], matchCharacterPersonality: true, content: 'by personality' },
        { key: ['fog'], matchCharacterDepthPrompt: true, content: 'by depth prompt' },
        { key: ['winter'], matchScenario: true, content: 'by scenario' },
        { key: ['winter'], matchCreatorNotes: true, content: 'wrong field' },
        { key: ['Ming'], matchCreatorNotes: true, content: 'by notes, names put in' },
      ]),
    ];
    expect(fired({ books, input: 'hello', scanData, names: { user: 'Ming', char: 'Lia' } }).sort()).toEqual(['0', '2', '3', '4', '5', '7']);
    expect(fired({ books, input: 'hello' })).toEqual([]);
  });

  it('each field is its own part of the scan text (ST joins them with a newline and \\x01) and a scan depth of 0 reads none', () => {
    const books = [
      book([
        { key: ['/^\\x01A winter night\\.$/m'], matchScenario: true, content: 'anchored' },
        // In ST's order: the personality comes before the scenario.
        { key: ['/stubborn\\n\\x01A winter/'], matchScenario: true, matchCharacterPersonality: true, content: 'spans two fields' },
        { key: ['winter'], matchScenario: true, scanDepth: 0, content: 'depth 0' },
      ]),
    ];
    expect(fired({ books, input: 'hello', scanData }).sort()).toEqual(['0', '1']);
  });

  it('group scoring counts the keys found in the fields too', () => {
    const books = [
      book([
        { key: ['storm', 'lighthouse'], group: 'g', useGroupScoring: true, matchCharacterDescription: true, content: 'two keys' },
        { key: ['storm'], group: 'g', useGroupScoring: true, content: 'one key' },
      ]),
    ];
    const winners = (data?: typeof scanData) => new Set(Array.from({ length: 20 }, (_, seed) => run({ books, input: 'storm', seed, ...(data ? { scanData: data } : {}) }).entries.map((entry) => entry.uid).join()));
    expect(winners(scanData)).toEqual(new Set(['0']));
    // Without the description the two tie and the weighted draw picks either.
    expect(winners()).toEqual(new Set(['0', '1']));
  });

  it('the plugin takes the fields from the book source (TurnBooks.scanData)', async () => {
    const books = [book([{ key: ['lighthouse'], matchCharacterDescription: true, content: 'by description' }])];
    const seen: (ActivatedWorldInfo | undefined)[] = [];
    const probe = definePlugin({
      name: 'probe',
      version: '1.0.0',
      setup(ctx) {
        ctx.hooks.preActor((_input, turn) => {
          seen.push(turn.get(contextKeys.worldInfo));
        });
      },
    });
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: () => ({ books, scanData: { characterDescription: 'Lia keeps the lighthouse.' } }) }), probe],
      model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }),
    });
    await harness.runTurn({ sessionId: 's', text: 'hello' });
    expect(seen[0]?.entries.map((entry) => entry.content)).toEqual(['by description']);
    await harness.close();
  });

  it('a malformed scanData from a book source is an input error', async () => {
    const { harness } = await createTestHarness({
      plugins: [lorebookPlugin({ books: () => ({ books: [], scanData: { scenario: 42 as unknown as string } }) })],
      model: new ScriptedChatModel({ byStage: { actor: ['ok'] } }),
    });
    await expect(harness.runTurn({ sessionId: 's', text: 'hello' })).rejects.toThrow(/scanData/);
    await harness.close();
  });
});
