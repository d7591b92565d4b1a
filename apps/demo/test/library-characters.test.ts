import { importCharacterCard, readPngTextChunks } from '@troupe/plugin-actor-assembler';
import { describe, expect, it } from 'vitest';
import { expectError, playTurn } from './support/api-client.js';
import { corpusBytes, corpusFiles, upload } from './support/corpus.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('character library over the corpus', () => {
  it.each(corpusFiles('cards'))('%s imports and can be chatted with', async (file) => {
    const imported = await upload(fx.server.url, '/api/characters', corpusBytes('cards', file), file);
    expect(imported.status).toBe(201);
    const character = imported.body;
    expect(character.name.length).toBeGreaterThan(0);
    expect(character.id).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
    const chat = await api('POST', '/api/chats', { characterId: character.id });
    expect(chat.status).toBe(201);
    expect(chat.body.greetings).toHaveLength(character.greetings);
    const messages = await playTurn(fx.server.url, chat.body.id, 'Hello there. Who are you?');
    const result = messages.at(-1);
    expect(result?.event).toBe('result');
    const reply = (result?.data as { reply: string } | undefined)?.reply ?? '';
    expect(reply.trim().length).toBeGreaterThan(0);
    // In character: the offline actor answers as this card's character.
    expect(reply).toContain(character.displayName);
    // The actor played this card: its name reaches the model, Lia's text does not.
    const prepared = ((result?.data as { prepared: { history: { content: string }[] } } | undefined)?.prepared.history ?? []).map((m) => m.content).join('\n');
    expect(prepared).toContain(character.displayName);
    expect(prepared).not.toContain('雾港的灯塔守护者');
  });
});

describe('character library', () => {
  it('lists with avatars, views, edits, exports as V3 PNG and JSON, and deletes', async () => {
    const png = await upload(fx.server.url, '/api/characters', corpusBytes('cards', 'c01-st-seraphina-v2.png'), 'seraphina.png');
    const id = png.body.id as string;
    const list = await api('GET', '/api/characters');
    expect(list.body.characters.find((c: { id: string }) => c.id === id)).toMatchObject({ name: 'Seraphina', hasAvatar: true, format: 'png' });
    const avatar = await fetch(`${fx.server.url}/api/characters/${id}/avatar`);
    expect(avatar.headers.get('content-type')).toBe('image/png');
    const picture = new Uint8Array(await avatar.arrayBuffer());
    // The avatar is the picture alone: no stale card inside.
    expect(readPngTextChunks(picture).has('chara')).toBe(false);

    const view = await api('GET', `/api/characters/${id}`);
    expect(view.body.fields.description.length).toBeGreaterThan(20);
    expect(view.body.lorebookEntries).toBeGreaterThan(0);
    const edited = await api('PATCH', `/api/characters/${id}`, { baseRevision: view.body.revision, fields: { description: 'A healer of the glade.', alternate_greetings: ['Another hello'] } });
    expect(edited.status).toBe(200);
    expect(edited.body.fields).toMatchObject({ description: 'A healer of the glade.', alternate_greetings: ['Another hello'] });
    expectError(await api('PATCH', `/api/characters/${id}`, { baseRevision: view.body.revision, fields: { description: 'stale' } }), 409, 'LIBRARY_REVISION_CONFLICT');
    expectError(await api('PATCH', `/api/characters/${id}`, { baseRevision: edited.body.revision, fields: { name: '' } }), 400, 'INVALID_REQUEST');

    const exportedPng = new Uint8Array(await (await fetch(`${fx.server.url}/api/characters/${id}/export.png`)).arrayBuffer());
    const again = importCharacterCard(exportedPng);
    expect(again).toMatchObject({ spec: 'chara_card_v3', pngChunk: 'ccv3' });
    expect(again.character.description).toBe('A healer of the glade.');
    // Nothing lost: the lorebook and extensions come back out.
    expect(again.character.characterBook).toEqual(importCharacterCard(corpusBytes('cards', 'c01-st-seraphina-v2.png')).character.characterBook);
    const exportedJson = await api('GET', `/api/characters/${id}/export.json`);
    expect(exportedJson.body).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Seraphina', description: 'A healer of the glade.' } });

    expect((await api('DELETE', `/api/characters/${id}`)).body).toEqual({ deleted: true, id });
    expectError(await api('GET', `/api/characters/${id}`), 404, 'LIBRARY_NOT_FOUND');
  });

  it('exports a JSON card as a V3 PNG on a plain picture', async () => {
    const card = await upload(fx.server.url, '/api/characters', json({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Plain', first_mes: 'Hi' } }), 'plain.json');
    expect(card.body.hasAvatar).toBe(false);
    const png = new Uint8Array(await (await fetch(`${fx.server.url}/api/characters/${card.body.id}/export.png`)).arrayBuffer());
    expect(importCharacterCard(png).character.name).toBe('Plain');
  });

  it('derives distinct ids for names in any script', async () => {
    const a = await upload(fx.server.url, '/api/characters', json({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: '测试角色' } }), 'a.json');
    const b = await upload(fx.server.url, '/api/characters', json({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: '测试角色' } }), 'b.json');
    expect(a.body.id).toMatch(/^c-[0-9a-f]{8}$/);
    expect(b.body.id).toBe(`${a.body.id}-2`);
  });

  it('answers a file that is not a card with an error naming the shape or the field', async () => {
    const bad = async (bytes: Uint8Array) => upload(fx.server.url, '/api/characters', bytes, 'x');
    expect((await bad(json({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: null } }))).body).toMatchObject({ code: 'IMPORT_CARD_INVALID', message: expect.stringContaining('data.name') });
    expect((await bad(new TextEncoder().encode('{"spec":'))).body.code).toBe('IMPORT_JSON_INVALID');
    expect((await bad(Uint8Array.of(0x50, 0x4b, 0x03, 0x04, 0, 0))).body.code).toBe('IMPORT_CHARX_INVALID');
    const unsupported = await bad(json({ spec: 'something_else', data: { name: 'x' } }));
    expect(unsupported).toMatchObject({ status: 400, body: { code: 'IMPORT_CARD_UNSUPPORTED' } });
    const wrongType = await fetch(`${fx.server.url}/api/characters`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(415);
    const tooLarge = await fetch(`${fx.server.url}/api/characters`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(21 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
  });
});
