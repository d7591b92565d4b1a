import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { embedCharacterCard, importCharacterCard, readPngTextChunks, toCardV3 } from '../src/index.js';
import { corpusPath } from './corpus.js';
import { tinyPng } from './helpers.js';

// The `chara` chunk is all that tools from before V3 read, so it must carry what SillyTavern
// writes there: every top-level field of the card and the V1 copies of the card text.
const cardsDir = corpusPath('cards');
const V1_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example'] as const;

function charaOf(png: Uint8Array): Record<string, unknown> {
  return JSON.parse(Buffer.from(readPngTextChunks(png).get('chara') ?? '', 'base64').toString('utf8'));
}

describe('embedCharacterCard — the chara backfill of a V3 card', () => {
  it.each(readdirSync(cardsDir).sort())('%s: keeps every top-level field and writes the V1 fields from data', (file) => {
    const source = importCharacterCard(new Uint8Array(readFileSync(`${cardsDir}/${file}`))).source;
    const v3 = toCardV3(source);
    const chara = charaOf(embedCharacterCard(tinyPng(), v3));
    const { spec: _spec, spec_version: _version, data, ...topLevel } = v3;
    const v1FromData = Object.fromEntries(V1_FIELDS.filter((field) => typeof data[field] === 'string').map((field) => [field, data[field]]));
    expect(chara).toEqual({ ...topLevel, ...v1FromData, spec: 'chara_card_v2', spec_version: '2.0', data });
    // A reader of `chara` alone gets the same card back, top-level fields included.
    const reread = importCharacterCard(chara);
    expect(reread.character.name).toBe(data.name);
    expect((reread.source as Record<string, unknown>)['create_date']).toEqual((source as Record<string, unknown>)['create_date']);
  });

  it('writes the V1 fields from data when the top-level copies are stale', () => {
    const { source } = importCharacterCard({
      spec: 'chara_card_v2',
      spec_version: '2.0',
      name: 'Old name',
      description: 'old',
      chat: 'Old name - 2023-1-1',
      data: { name: 'New name', description: 'new', first_mes: 'Hello' },
    });
    const card = toCardV3(source);
    const chara = charaOf(embedCharacterCard(tinyPng(), card));
    expect(chara).toMatchObject({ name: 'New name', description: 'new', first_mes: 'Hello', chat: 'Old name - 2023-1-1' });
  });
});
