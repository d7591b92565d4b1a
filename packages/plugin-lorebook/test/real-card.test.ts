import { readFileSync } from 'node:fs';
import type { ChatMessage } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel, createTestHarness } from '@troupe/kernel/testing';
import { actorAssemblerPlugin, characterMacroFields, embedCharacterCard, encodePng, importCharacterCard } from '@troupe/plugin-actor-assembler';
import { describe, expect, it } from 'vitest';
import { importCardLorebook, lorebookPlugin } from '../src/index.js';

// Our own fixtures in the V2 and V3 shapes: the description is empty and the character lives in
// constant lorebook entries (as in many real Chinese cards). The V3 card is embedded in a PNG.
function tinyPng(): Uint8Array {
  const ihdr = Uint8Array.of(0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0);
  const idat = Uint8Array.of(0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff, 0x00, 0x7f, 0x00, 0x80, 0x00, 0x80);
  return encodePng([{ type: 'IHDR', data: ihdr }, { type: 'IDAT', data: idat }, { type: 'IEND', data: new Uint8Array() }]);
}
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const cards = {
  'V2 JSON': fixture('wren-v2.json'),
  'V3 PNG': new Uint8Array(embedCharacterCard(tinyPng(), fixture('wren-v3.json'))),
};

async function actorPrompt(card: object | Uint8Array, text: string): Promise<readonly ChatMessage[]> {
  const imported = importCharacterCard(card);
  const lore = importCardLorebook(imported.source);
  if (!lore) throw new Error('fixture has no book');
  const model = new ScriptedChatModel({ byStage: { actor: ['"Mind the ink."'] } });
  const { harness } = await createTestHarness({
    plugins: [
      lorebookPlugin({ books: [lore.book], names: { char: imported.character.displayName, user: 'Ming' } }),
      actorAssemblerPlugin({ preset: imported.preset, char: imported.character.displayName, user: 'Ming', fields: characterMacroFields(imported.character) }),
    ],
    model,
    sessionLog: new MemorySessionLog(),
  });
  const turn = await harness.runTurn({ sessionId: 'wren', text });
  await harness.close();
  return turn.prepared.history;
}

describe.each(Object.entries(cards))('a card whose character is in its lorebook (%s)', (_label, card) => {
  it('the actor prompt holds the constant entries at their positions: world before, character after, style at depth 0', async () => {
    const messages = await actorPrompt(card, 'Good morning!');
    const contents = messages.map((message) => message.content);
    const world = contents.findIndex((content) => content.startsWith("[Wren's world]"));
    const character = contents.findIndex((content) => content.startsWith('[Wren] Wren is the city'));
    const input = contents.indexOf('Good morning!');
    expect(world).toBeGreaterThan(0); // after the main prompt
    expect(character).toBeGreaterThan(world);
    expect(input).toBeGreaterThan(character);
    // Macros resolved: {{user}} in the world entry, {{char}} in the character entry.
    expect(contents[world]).toContain('Ming arrived yesterday');
    // The @depth 0 system entry comes right after the player's input.
    expect(messages[input + 1]).toEqual({ role: 'system', content: "[Style] Write Wren's reply in third person, under 120 words." });
    expect(contents.join('\n')).not.toContain('should never appear');
    expect(contents.join('\n')).not.toContain('[Lighthouse]');
  });

  it('a keyed entry joins when the chat names it (also in Chinese)', async () => {
    const contents = (await actorPrompt(card, '我们去灯塔吧')).map((message) => message.content);
    const character = contents.findIndex((content) => content.startsWith('[Wren]'));
    // Both are "after" entries: order 20 then 40, joined in one slot.
    expect(contents[character]).toBe("[Wren] Wren is the city's cartographer: 24, ink-stained fingers, speaks in quick, precise sentences and hates being rushed.\n[Lighthouse] The old lighthouse on the eastern rim is the only building older than the city.");
  });
});
