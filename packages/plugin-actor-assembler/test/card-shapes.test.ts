import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type CharacterCardImport, importCharacterCard, importCharacterCardFile, readPngTextChunks, setPngTextChunks, toCardV3 } from '../src/index.js';
import { base64Json, codeOf, tinyPng } from './helpers.js';
import { makeZip } from './support-zip.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const cardsDir = join(repoRoot, '..', 'shared', 'corpus', 'cards');
const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

const v1 = { name: 'Aqua', description: 'A goddess of water.', personality: 'loud', first_mes: '*Aqua waves.* Hi!', mes_example: '', scenario: 'A guild hall', avatar: 'none', create_date: '2023-1-1' };

describe('card shapes: V1', () => {
  it('upgrades a V1 card to V2, keeping its original fields for export', () => {
    const card = importCharacterCard(v1);
    expect(card.spec).toBe('chara_card_v2');
    expect(card.character).toMatchObject({ name: 'Aqua', description: 'A goddess of water.', firstMessage: '*Aqua waves.* Hi!', scenario: 'A guild hall' });
    expect(card.notes.join(' ')).toContain('V1 card upgraded to V2');
    expect((card.source as Record<string, unknown>)['avatar']).toBe('none');
    expect((card.source as Record<string, unknown>)['create_date']).toBe('2023-1-1');
  });

  it('reads a V1 card from a PNG chara chunk', () => {
    const png = setPngTextChunks(tinyPng(), { chara: base64Json(v1) });
    const card = importCharacterCard(png);
    expect(card).toMatchObject({ spec: 'chara_card_v2', pngChunk: 'chara', format: 'png' });
  });

  it('refuses an object that is neither a V1 nor a specced card, saying what it lacks', () => {
    const error = (() => {
      try {
        importCharacterCard({ title: 'not a card' });
      } catch (caught) {
        return caught as Error & { code: string };
      }
      return undefined;
    })();
    expect(error?.code).toBe('IMPORT_CARD_UNSUPPORTED');
    expect(error?.message).toContain('no "spec" field');
  });
});

describe('card shapes: lenient V2/V3', () => {
  it('reads null optional fields as absent and says so', () => {
    const card = importCharacterCard({
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: { name: 'N', description: 'd', creator_notes: null, character_book: null, tags: null, extensions: null, alternate_greetings: null },
    });
    expect(card.character).toMatchObject({ name: 'N', creatorNotes: '', tags: [], alternateGreetings: [], extensions: {} });
    expect(card.character.characterBook).toBeUndefined();
    expect(card.notes).toContain('data.creator_notes was null; read as absent');
  });

  it('reads a numeric spec_version as text', () => {
    expect(importCharacterCard({ spec: 'chara_card_v2', spec_version: 2, data: { name: 'N' } }).specVersion).toBe('2.0');
    expect(importCharacterCard({ spec: 'chara_card_v3', spec_version: 3, data: { name: 'N' } }).specVersion).toBe('3.0');
  });

  it('names the field when a card cannot be read without losing something', () => {
    const nullName = () => importCharacterCard({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: null } });
    expect(codeOf(nullName)).toBe('IMPORT_CARD_INVALID');
    expect(() => nullName()).toThrow(/data\.name/);
    const wrongType = () => importCharacterCard({ spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'N', alternate_greetings: 'hello' } });
    expect(() => wrongType()).toThrow(/data\.alternate_greetings/);
    expect(() => importCharacterCard({ spec: 'chara_card_v2', spec_version: '2.0' })).toThrow(/data/);
    expect(codeOf(() => importCharacterCard({ spec: 'chara_card_v9', data: { name: 'N' } }))).toBe('IMPORT_CARD_UNSUPPORTED');
    expect(codeOf(() => importCharacterCard('[1,2]'))).toBe('IMPORT_CARD_INVALID');
  });

  it('caps card sizes', () => {
    const huge = new Uint8Array(21 * 1024 * 1024);
    expect(codeOf(() => importCharacterCard(huge))).toBe('IMPORT_TOO_LARGE');
  });
});

describe('card shapes: CHARX', () => {
  const card = { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'Zip', first_mes: 'From a zip', assets: [{ type: 'icon', uri: 'embeded://assets/icon/main.png', name: 'main', ext: 'png' }] } };

  it('reads card.json and the main icon from a CHARX archive', () => {
    const icon = tinyPng();
    const archive = makeZip([
      { name: 'card.json', data: json(card) },
      { name: 'assets/icon/main.png', data: icon, deflate: false },
    ]);
    const imported = importCharacterCard(archive);
    expect(imported).toMatchObject({ spec: 'chara_card_v3', format: 'charx' });
    expect(imported.character.firstMessage).toBe('From a zip');
    expect(Buffer.from(imported.icon ?? []).equals(Buffer.from(icon))).toBe(true);
  });

  it('recognises a CHARX without card.json as CHARX, not as invalid JSON', () => {
    const archive = makeZip([{ name: 'readme.txt', data: json('hi') }]);
    expect(codeOf(() => importCharacterCard(archive))).toBe('IMPORT_CHARX_INVALID');
    expect(() => importCharacterCard(archive)).toThrow(/CHARX archive: no card\.json/);
  });

  it('refuses a truncated archive and an entry that would inflate past the cap', () => {
    const archive = makeZip([{ name: 'card.json', data: json(card) }]);
    expect(codeOf(() => importCharacterCard(archive.subarray(0, archive.length - 30)))).toBe('IMPORT_CHARX_INVALID');
    const bomb = makeZip([{ name: 'card.json', data: new Uint8Array(9 * 1024 * 1024).fill(32) }]);
    expect(codeOf(() => importCharacterCard(bomb))).toBe('IMPORT_TOO_LARGE');
  });
});

describe('toCardV3', () => {
  it('turns a V2 card into V3 and keeps every field', () => {
    const imported = importCharacterCard({ spec: 'chara_card_v2', spec_version: '2.0', x_top: 1, data: { name: 'N', description: 'd', extensions: { keep: true } } });
    const v3 = toCardV3(imported.source);
    expect(v3).toMatchObject({ spec: 'chara_card_v3', spec_version: '3.0', x_top: 1, data: { name: 'N', description: 'd', extensions: { keep: true }, group_only_greetings: [] } });
    expect(importCharacterCard(v3).character.description).toBe('d');
  });
});

describe('card shapes: the real corpus', () => {
  const files = readdirSync(cardsDir).sort();

  it.each(files)('%s imports with a name and something to play', async (file) => {
    let imported: CharacterCardImport | undefined;
    try {
      imported = await importCharacterCardFile(join(cardsDir, file));
    } catch (error) {
      // A shape Troupe cannot read must say which shape it is.
      expect((error as Error).message).toMatch(/CHARX|V1|spec|PNG/);
      throw error;
    }
    expect(imported.character.name.length).toBeGreaterThan(0);
    const text = [imported.character.firstMessage, imported.character.description, JSON.stringify(imported.character.characterBook ?? {})].join('');
    expect(text.length).toBeGreaterThan(0);
    if (file.endsWith('.png')) {
      expect(imported.format).toBe('png');
      expect(readPngTextChunks(new Uint8Array(readFileSync(join(cardsDir, file)))).size).toBeGreaterThan(0);
    }
    if (file.endsWith('.charx')) expect(imported.format).toBe('charx');
  });
});
