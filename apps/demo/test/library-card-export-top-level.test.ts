import { importCharacterCard, readPngTextChunks, setPngTextChunks } from '@troupe/plugin-actor-assembler';
import { describe, expect, it } from 'vitest';
import { stripCardChunks } from '../src/library/avatar-image.js';
import { corpusBytes, upload } from './support/corpus.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// A card's top-level fields (SillyTavern's V1 copies, `create_date`, `chat`, …) must survive an
// export read by a tool that knows only the `chara` chunk, and an edit must not leave the V1
// copies telling an older card than `data`.
const fx = setupWebFixture();
const { api } = fx;

async function exportedPng(id: string): Promise<Uint8Array> {
  return new Uint8Array(await (await fetch(`${fx.server.url}/api/characters/${id}/export.png`)).arrayBuffer());
}

// biome-ignore lint/suspicious/noExplicitAny: the chunk is arbitrary card JSON read field by field
function charaChunk(png: Uint8Array): any {
  return JSON.parse(Buffer.from(readPngTextChunks(png).get('chara') ?? '', 'base64').toString('utf8'));
}

describe('card export: top-level fields', () => {
  it('a V1 card exported as PNG and read back from its chara chunk alone keeps create_date, chat and avatar', async () => {
    const original = corpusBytes('cards', 'c05-st-aqua-v1.png');
    const source = importCharacterCard(original).source as Record<string, unknown>;
    const imported = await upload(fx.server.url, '/api/characters', original, 'aqua.png');
    expect(imported.status).toBe(201);
    const png = await exportedPng(imported.body.id);
    // What an older tool reads: the chara chunk alone (the same PNG without its ccv3 chunk).
    const charaOnly = setPngTextChunks(stripCardChunks(png), { chara: readPngTextChunks(png).get('chara') ?? '' });
    const again = await upload(fx.server.url, '/api/characters', charaOnly, 'aqua-chara-only.png');
    expect(again.status).toBe(201);
    expect(importCharacterCard(charaOnly).pngChunk).toBe('chara');
    const reexported = await api('GET', `/api/characters/${again.body.id}/export.json`);
    for (const field of ['create_date', 'chat', 'avatar', 'name', 'description', 'first_mes']) {
      expect(reexported.body[field], field).toEqual(source[field]);
    }
  });

  it('a V2 card keeps talkativeness, fav and creatorcomment in its chara chunk', async () => {
    const original = corpusBytes('cards', 'c03-st-coding-sensei-v2.png');
    const source = importCharacterCard(original).source as Record<string, unknown>;
    const imported = await upload(fx.server.url, '/api/characters', original, 'sensei.png');
    const chara = charaChunk(await exportedPng(imported.body.id));
    expect(chara).toMatchObject({ talkativeness: source['talkativeness'], fav: source['fav'], creatorcomment: source['creatorcomment'], create_date: source['create_date'] });
  });

  it('an edit updates the top-level V1 copies with data, in export.json and both PNG chunks', async () => {
    // Coding Sensei carries all eight copies SillyTavern writes (tags and creatorcomment too).
    const imported = await upload(fx.server.url, '/api/characters', corpusBytes('cards', 'c03-st-coding-sensei-v2.png'), 'sensei.png');
    const id = imported.body.id as string;
    const view = await api('GET', `/api/characters/${id}`);
    const fields = { name: 'Sensei Edited', description: 'Edited description.', personality: 'Edited personality.', scenario: 'Edited scenario.', first_mes: 'Edited greeting.', mes_example: '<START>\nEdited example.', creator_notes: 'Edited notes.', tags: ['edited'] };
    const edited = await api('PATCH', `/api/characters/${id}`, { baseRevision: view.body.revision, fields });
    expect(edited.status).toBe(200);
    const mirrored = { name: fields.name, description: fields.description, personality: fields.personality, scenario: fields.scenario, first_mes: fields.first_mes, mes_example: fields.mes_example, creatorcomment: fields.creator_notes, tags: fields.tags };
    const json = await api('GET', `/api/characters/${id}/export.json`);
    expect(json.body).toMatchObject({ ...mirrored, data: { name: fields.name, description: fields.description, first_mes: fields.first_mes } });
    const png = await exportedPng(id);
    expect(charaChunk(png)).toMatchObject(mirrored);
    expect(JSON.parse(Buffer.from(readPngTextChunks(png).get('ccv3') ?? '', 'base64').toString('utf8'))).toMatchObject(mirrored);
    // Fields the edit did not touch keep their top-level copies as they were.
    expect(json.body.create_date).toBe((importCharacterCard(corpusBytes('cards', 'c03-st-coding-sensei-v2.png')).source as Record<string, unknown>)['create_date']);
  });

  it('an edit adds no top-level copies a card did not have', async () => {
    const imported = await upload(fx.server.url, '/api/characters', corpusBytes('cards', 'c21-fixture-tavernkit-v3.png'), 'tavernkit.png');
    const id = imported.body.id as string;
    const view = await api('GET', `/api/characters/${id}`);
    await api('PATCH', `/api/characters/${id}`, { baseRevision: view.body.revision, fields: { description: 'Edited.' } });
    const json = await api('GET', `/api/characters/${id}/export.json`);
    expect(Object.keys(json.body).sort()).toEqual(['data', 'spec', 'spec_version']);
    expect(json.body.data.description).toBe('Edited.');
  });
});
