import { describe, expect, it } from 'vitest';
import { expectError, playTurn } from './support/api-client.js';
import { corpusBytes, upload } from './support/corpus.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

type Prepared = { role: string; content: string }[];
async function preparedOf(sessionId: string, text: string): Promise<Prepared> {
  const result = (await playTurn(fx.server.url, sessionId, text)).at(-1);
  expect(result?.event).toBe('result');
  return (result?.data as { prepared: { history: Prepared } } | undefined)?.prepared.history ?? [];
}

// Eldoria (SillyTavern's default world info): 0 eldoria/wood/forest, 1 shadowfang/beast(s)/monster(s), 2 glade/refuge, 3 power/magic.
const SHADOWFANG = 'The Shadowfangs are beasts of darkness';
const GLADE = 'This is my forest glade, a haven of safety';

describe('lorebooks in the demo', () => {
  it('imports a SillyTavern world-info file, lists and shows it with its entries; bad files are refused with a code', async () => {
    const imported = await upload(fx.server.url, '/api/lorebooks', corpusBytes('lorebooks', 'l01-st-eldoria.json'), 'Eldoria.json');
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ id: 'eldoria', name: 'Eldoria', entries: 4, skipped: [] });
    expect(imported.body.entryRows[1]).toMatchObject({ uid: '1', keys: ['shadowfang', 'beast', 'monster', 'monsters', 'beasts'], position: 'before', constant: false });
    const list = await api('GET', '/api/lorebooks');
    expect(list.body.lorebooks.map((book: { id: string }) => book.id)).toContain('eldoria');
    expect((await api('GET', '/api/lorebooks/eldoria')).body.entryRows).toHaveLength(4);
    expect((await upload(fx.server.url, '/api/lorebooks', json({ notEntries: true }), 'x.json')).body.code).toBe('LOREBOOK_INVALID');
    expect((await upload(fx.server.url, '/api/lorebooks', new TextEncoder().encode('{oops'), 'x.json')).body.code).toBe('LOREBOOK_JSON_INVALID');
    expectError(await api('GET', '/api/lorebooks/nope'), 404, 'LIBRARY_NOT_FOUND');
  });

  it('a book attached to a session fires on its keys; the prompt holds it and /lore says which entry fired and why', async () => {
    const attached = await api('PUT', '/api/sessions/lore-a/lorebooks', { lorebookIds: ['eldoria'] });
    expect(attached.status).toBe(200);
    expect(attached.body.attached).toEqual([{ id: 'eldoria', name: 'Eldoria', entries: 4 }]);
    expectError(await api('PUT', '/api/sessions/lore-a/lorebooks', { lorebookIds: ['missing-book'] }), 404, 'LIBRARY_NOT_FOUND');

    const prepared = await preparedOf('lore-a', 'Are there beasts out there?');
    const text = prepared.map((m) => m.content).join('\n');
    expect(text).toContain(SHADOWFANG);
    const lore = await api('GET', '/api/sessions/lore-a/lore');
    const fired = lore.body.turns[0].entries;
    expect(fired.find((entry: { id: string }) => entry.id === 'eldoria.1')).toMatchObject({ reason: 'key', key: 'beasts', position: 'before' });

    // Detached: the next turn has no world info.
    await api('PUT', '/api/sessions/lore-a/lorebooks', { lorebookIds: [] });
    expect((await preparedOf('lore-a', 'Are there beasts out there?')).map((m) => m.content).join('\n')).not.toContain(SHADOWFANG);
  });

  it("a library chat uses its character's embedded book (Seraphina's character_book) without attaching anything", async () => {
    const character = await upload(fx.server.url, '/api/characters', corpusBytes('cards', 'c01-st-seraphina-v2.png'), 'Seraphina.png');
    expect(character.status).toBe(201);
    const chat = await api('POST', '/api/chats', { characterId: character.body.id });
    const view = await api('GET', `/api/sessions/${chat.body.id}/lorebooks`);
    expect(view.body.characterBook).toMatchObject({ character: 'Seraphina', entries: 4 });
    const prepared = await preparedOf(chat.body.id, 'Where am I? Is this a glade?');
    expect(prepared.map((m) => m.content).join('\n')).toContain(GLADE);
    // The character book's glade entry fired by its key.
    const turns = (await api('GET', `/api/sessions/${chat.body.id}/lore`)).body.turns;
    expect(turns[0].entries.map((entry: { key: string }) => entry.key)).toContain('glade');
  });

  it("a library chat's greeting is scanned for world info, as SillyTavern scans the chat's first message", async () => {
    const orla = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Orla',
        description: '{{char}} is a navigator.',
        first_mes: '*{{char}} polishes the brass astrolabe.*',
        alternate_greetings: ['*Rain taps on the window.*'],
        character_book: { entries: [{ keys: ['astrolabe'], content: 'ASTROLABE-LORE: it was her mother\'s.', enabled: true, insertion_order: 10 }] },
      },
    };
    const id = (await upload(fx.server.url, '/api/characters', json(orla), 'orla.json')).body.id;
    const chat = await api('POST', '/api/chats', { characterId: id });
    expect((await preparedOf(chat.body.id, 'Hello.')).map((m) => m.content).join('\n')).toContain('ASTROLABE-LORE');
    const turns = (await api('GET', `/api/sessions/${chat.body.id}/lore`)).body.turns;
    expect(turns[0].entries.map((entry: { key: string }) => entry.key)).toEqual(['astrolabe']);
    // Another greeting that does not name it: nothing fires.
    const other = await api('POST', '/api/chats', { characterId: id, greetingIndex: 1 });
    expect((await preparedOf(other.body.id, 'Hello.')).map((m) => m.content).join('\n')).not.toContain('ASTROLABE-LORE');
  });

  it("entries that match the card's and persona's fields see them (SillyTavern's match flags), with the names put in", async () => {
    const wren = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Wren',
        description: '{{char}} is a falconer.',
        scenario: 'A frozen harbour.',
        first_mes: 'Hello.',
        character_book: {
          entries: [
            { keys: ['falconer'], content: 'FALCON-LORE', enabled: true, insertion_order: 10, extensions: { match_character_description: true } },
            { keys: ['harbour'], content: 'HARBOUR-LORE', enabled: true, insertion_order: 10, extensions: { match_scenario: true } },
            { keys: ['Wren'], content: 'NAME-LORE', enabled: true, insertion_order: 10, extensions: { match_character_description: true } },
            { keys: ['falconer'], content: 'CHAT-ONLY-LORE', enabled: true, insertion_order: 10 },
          ],
        },
      },
    };
    const id = (await upload(fx.server.url, '/api/characters', json(wren), 'wren.json')).body.id;
    const chat = await api('POST', '/api/chats', { characterId: id });
    const text = (await preparedOf(chat.body.id, 'Good morning.')).map((m) => m.content).join('\n');
    expect(text).toContain('FALCON-LORE');
    expect(text).toContain('HARBOUR-LORE');
    // `{{char}}` in the description is the card's name when scanned.
    expect(text).toContain('NAME-LORE');
    expect(text).not.toContain('CHAT-ONLY-LORE');
  });

  it('a deleted book is left out of later turns and shown as missing', async () => {
    const other = await upload(fx.server.url, '/api/lorebooks', json({ entries: { '0': { uid: 0, key: ['lantern'], content: 'LANTERN-LORE' } } }), 'Lanterns.json');
    await api('PUT', '/api/sessions/lore-b/lorebooks', { lorebookIds: [other.body.id] });
    expect((await preparedOf('lore-b', 'light the lantern')).map((m) => m.content).join('\n')).toContain('LANTERN-LORE');
    expect((await api('DELETE', `/api/lorebooks/${other.body.id}`)).body.deleted).toBe(true);
    expect((await api('GET', '/api/sessions/lore-b/lorebooks')).body.missing).toEqual([other.body.id]);
    expect((await preparedOf('lore-b', 'light the lantern')).map((m) => m.content).join('\n')).not.toContain('LANTERN-LORE');
  });
});
