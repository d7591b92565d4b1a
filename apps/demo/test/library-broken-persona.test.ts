import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectError } from './support/api-client.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// A file of its own: it breaks the data folder's default persona, which every other chat uses.
const fx = setupWebFixture();
const { api } = fx;
const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Mira', first_mes: 'Hello, {{user}}.' } };

describe('a default persona whose persona.json a hand edit broke', () => {
  it('is listed as broken, and a chat that would use it is refused naming the file; another persona still works', async () => {
    const listed = await api('GET', '/api/personas');
    expect(listed.body.personas.map((p: { id: string }) => p.id)).toEqual(['user']);
    const characterId = (await api('POST', '/api/characters?fileName=mira.json', JSON.stringify(card), { 'content-type': 'application/octet-stream' })).body.id as string;
    const other = await api('POST', '/api/personas', { name: 'Rook', description: 'A courier.' });
    // What a player's text editor (or a bad sync) does to the file.
    await writeFile(join(fx.dataDir, 'library', 'personas', 'user', 'persona.json'), 'xx\n');

    const list = await api('GET', '/api/personas');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ personas: [{ id: other.body.id }], defaultId: 'user' });
    expect(list.body.broken).toEqual([{ id: 'user', message: expect.stringContaining('library/personas/user/persona.json') }]);

    const chatsBefore = (await api('GET', '/api/chats')).body.chats.length;
    const refused = await api('POST', '/api/chats', { characterId });
    expectError(refused, 400, 'LIBRARY_INVALID');
    expect(refused.body.message).toContain('library/personas/user/persona.json');
    expect((await api('GET', '/api/chats')).body.chats).toHaveLength(chatsBefore);

    const chat = await api('POST', '/api/chats', { characterId, personaId: other.body.id });
    expect(chat.status).toBe(201);
    expect(chat.body.persona).toEqual({ id: other.body.id, name: 'Rook' });
  });

  it('every library names a broken file by its path in the data folder', async () => {
    const character = (await api('POST', '/api/characters?fileName=ash.json', JSON.stringify({ ...card, data: { ...card.data, name: 'Ash' } }), { 'content-type': 'application/octet-stream' })).body.id as string;
    const other = (await api('POST', '/api/characters?fileName=elm.json', JSON.stringify({ ...card, data: { ...card.data, name: 'Elm' } }), { 'content-type': 'application/octet-stream' })).body.id as string;
    const chat = (await api('POST', '/api/chats', { characterId: character, personaId: (await api('POST', '/api/personas', { name: 'Wren', description: '' })).body.id })).body.id as string;
    const file = (...parts: string[]) => join(fx.dataDir, 'library', ...parts);
    // A card that no longer is a card, and a record that is not JSON.
    await writeFile(file('characters', character, 'card.json'), JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: {} }));
    await writeFile(file('characters', other, 'meta.json'), '{');
    await writeFile(file('chats', chat, 'chat.json'), '{');

    const characters = await api('GET', '/api/characters');
    const broken = new Map((characters.body.broken as { id: string; message: string }[]).map((b) => [b.id, b.message]));
    expect(broken.get(character)).toContain(`library/characters/${character}/card.json`);
    expect(broken.get(other)).toContain(`library/characters/${other}/meta.json`);
    const refused = await api('GET', `/api/chats/${chat}`);
    expectError(refused, 400, 'LIBRARY_INVALID');
    expect(refused.body.message).toContain(`library/chats/${chat}/chat.json`);
  });
});
