import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AssemblerError, CARD_POST_HISTORY_ID, CARD_SYSTEM_PROMPT_ID, assemble, characterMacroFields, embedCharacterCard, importCharacterCard, importCharacterCardFile, setPromptEnabled, validatePreset } from '../src/index.js';
import { readPngTextChunks, setPngTextChunks } from '../src/importers/png.js';
import { base64Json, codeOf, fixtureBytes, fixtureText, tinyPng } from './helpers.js';

const v2Text = fixtureText('lia-v2.json');
const v3Png = fixtureBytes('lia-v3.png');

describe('importCharacterCard — V2 JSON', () => {
  it('maps fields, keeps unknown fields and extensions, and uses the card prompts by default', () => {
    const card = importCharacterCard(v2Text);
    expect(card.spec).toBe('chara_card_v2');
    expect(card.pngChunk).toBeUndefined();
    expect(card.character).toMatchObject({
      name: '莉娅',
      displayName: '莉娅',
      personality: '冷静、好奇、嘴硬心软',
      firstMessage: '*莉娅拉开门，雨水灌进来。*「快进来，别让风把灯吹灭了。」',
      alternateGreetings: ['*灯塔的光扫过海面。*「又是你？这么晚还出海？」'],
      tags: ['原创', 'slice of life'],
      characterVersion: '1.2',
    });
    expect(card.character.extensions['x_unknown_tool']).toEqual({ keep: ['me', 1, null] });
    expect(card.character.characterBook?.['entries']).toHaveLength(1);
    // the verbatim source keeps top-level unknown fields for lossless re-export
    expect(card.source).toEqual(JSON.parse(v2Text));
    const systemPrompt = card.preset.prompts.find((p) => p.identifier === CARD_SYSTEM_PROMPT_ID);
    const postHistory = card.preset.prompts.find((p) => p.identifier === CARD_POST_HISTORY_ID);
    // the card's system prompt replaces main ({{original}} = main's text), as in SillyTavern
    expect(systemPrompt).toMatchObject({ enabled: true, content: "You are {{char}}. Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}. Never break character." });
    expect(card.preset.prompts.find((p) => p.identifier === 'main')?.enabled).toBe(false);
    expect(postHistory).toMatchObject({ enabled: true, content: 'Reply in at most three paragraphs.' });
    expect(card.character).toMatchObject({ systemPrompt: 'You are {{char}}. {{original}} Never break character.', postHistoryInstructions: 'Reply in at most three paragraphs.' });
    // opt-out: the card prompts come in switched off, main stays on
    const off = importCharacterCard(v2Text, {}, { useCardPrompts: false }).preset.prompts;
    expect(off.find((p) => p.identifier === CARD_SYSTEM_PROMPT_ID)?.enabled).toBe(false);
    expect(off.find((p) => p.identifier === CARD_POST_HISTORY_ID)?.enabled).toBe(false);
    expect(off.find((p) => p.identifier === 'main')?.enabled).toBe(true);
  });

  it('the imported preset assembles; with the opt-out the card prompts appear only once enabled; it accepts DIO', () => {
    const card = importCharacterCard(v2Text, {}, { useCardPrompts: false });
    const base = { history: [], input: '你好', char: card.character.displayName, user: '阿明', fields: characterMacroFields(card.character) };
    const before = assemble({ ...base, preset: card.preset }).messages.map((m) => m.content);
    expect(before.join('\n')).not.toContain('Never break character');
    expect(before[1]).toContain('莉娅是港口小镇的灯塔看守人');
    // macros inside card fields are expanded, as in SillyTavern
    expect(before[1]).toContain('莉娅 keeps the lighthouse log');
    expect(before[1]).toContain('暴风雨之夜，阿明敲响了灯塔的门。');
    const enabled = setPromptEnabled(setPromptEnabled(card.preset, CARD_SYSTEM_PROMPT_ID), CARD_POST_HISTORY_ID);
    const after = assemble({ ...base, preset: enabled }).messages.map((m) => m.content);
    expect(after).toContain("You are 莉娅. Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明. Never break character.");
    const byDefault = assemble({ ...base, preset: importCharacterCard(v2Text).preset }).messages.map((m) => m.content);
    expect(byDefault[0]).toBe("You are 莉娅. Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明. Never break character.");
    expect(byDefault.at(-1)).toBe('Reply in at most three paragraphs.');
    expect(after.at(-1)).toBe('Reply in at most three paragraphs.');
    expect(validatePreset(card.preset).dio).toMatchObject({ accepts: true, slot: { rule: 'roleplay' } });
  });

  it('the card system prompt can instead override main, where {{original}} is the main prompt', () => {
    const card = importCharacterCard(v2Text);
    const result = assemble({ preset: card.preset, history: [], input: 'q', char: '莉娅', user: '阿明', overrides: { main: card.cardPrompts.systemPrompt } });
    expect(result.messages[0]?.content).toBe("You are 莉娅. Write 莉娅's next reply in a fictional chat between 莉娅 and 阿明. Never break character.");
  });

  it('accepts a parsed object and bytes of JSON with a BOM', () => {
    expect(importCharacterCard(JSON.parse(v2Text)).character.name).toBe('莉娅');
    expect(importCharacterCard(new TextEncoder().encode(`\ufeff${v2Text}`)).character.name).toBe('莉娅');
  });

  it('rejects malformed cards with clear codes', () => {
    expect(codeOf(() => importCharacterCard('{"spec":'))).toBe('IMPORT_JSON_INVALID');
    expect(codeOf(() => importCharacterCard({ title: 'neither V1 nor specced' }))).toBe('IMPORT_CARD_UNSUPPORTED');
    expect(codeOf(() => importCharacterCard({ spec: 'chara_card_v2', spec_version: '2.0', data: { description: 'no name' } }))).toBe('IMPORT_CARD_INVALID');
    expect(codeOf(() => importCharacterCard({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'x', tags: 'not-a-list' } }))).toBe('IMPORT_CARD_INVALID');
    expect(codeOf(() => importCharacterCard(' '.repeat(20 * 1024 * 1024 + 1)))).toBe('IMPORT_TOO_LARGE');
  });

  it('takes a JSON card as large as a PNG card (a 15 MB lorebook card), and names the limit of a larger one', () => {
    const entries = Array.from({ length: 3_000 }, (_, index) => ({ keys: [`key${index}`], content: 'x'.repeat(5_000), enabled: true, insertion_order: index }));
    const big = new TextEncoder().encode(JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Big', character_book: { entries } } }));
    expect(big.length).toBeGreaterThan(15_000_000);
    expect(importCharacterCard(big).character.name).toBe('Big');
    try {
      importCharacterCard(new Uint8Array(21 * 1024 * 1024).fill(0x20));
      expect.unreachable();
    } catch (error) {
      expect((error as AssemblerError).code).toBe('IMPORT_TOO_LARGE');
      expect((error as AssemblerError).message).toContain(String(20 * 1024 * 1024));
    }
  });
});

describe('importCharacterCard — V3 PNG', () => {
  it('reads the committed fixture from its ccv3 chunk (preferred over chara)', () => {
    const card = importCharacterCard(v3Png);
    expect(card.pngChunk).toBe('ccv3');
    expect(card.spec).toBe('chara_card_v3');
    expect(card.character.displayName).toBe('小莉');
    expect(card.character.name).toBe('莉娅');
    expect(card.character.groupOnlyGreetings).toEqual(['「人都到齐了？那就把门关上。」']);
    expect(card.source.data).toMatchObject({ creator_notes_multilingual: { zh: '适合慢节奏剧情。' }, assets: [{ type: 'icon', uri: 'ccdefault:' }] });
  });

  it('prefers ccv3 over chara even when chara comes first, and falls back to chara alone', () => {
    const v2 = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'From chara' } };
    const v3 = { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'From ccv3' } };
    const both = setPngTextChunks(tinyPng(), { chara: base64Json(v2), ccv3: base64Json(v3) });
    expect(importCharacterCard(both).character.name).toBe('From ccv3');
    const charaOnly = setPngTextChunks(tinyPng(), { chara: base64Json(v2) });
    expect(importCharacterCard(charaOnly)).toMatchObject({ pngChunk: 'chara', character: { name: 'From chara' } });
  });

  it('accepts newer 3.x spec versions', () => {
    const png = setPngTextChunks(tinyPng(), { ccv3: base64Json({ spec: 'chara_card_v3', spec_version: '3.1', data: { name: 'Next' } }) });
    expect(importCharacterCard(png).specVersion).toBe('3.1');
  });

  it('round-trips: import → embed into a fresh PNG → import gives the same card, with a V2 backfill', () => {
    const first = importCharacterCard(v3Png);
    const written = embedCharacterCard(tinyPng(), first.source);
    const second = importCharacterCard(written);
    expect(second.source).toEqual(first.source);
    expect(second.character).toEqual(first.character);
    const chara = JSON.parse(Buffer.from(readPngTextChunks(written).get('chara') ?? '', 'base64').toString('utf8'));
    expect(chara).toMatchObject({ spec: 'chara_card_v2', data: { name: '莉娅' } });
    const v2 = importCharacterCard(v2Text);
    expect(importCharacterCard(embedCharacterCard(tinyPng(), v2.source)).source).toEqual(v2.source);
  });

  it('rejects a PNG without a card, a non-base64 chunk, a chunk with broken JSON, and a corrupted file', () => {
    expect(codeOf(() => importCharacterCard(tinyPng()))).toBe('PNG_NO_CARD');
    expect(codeOf(() => importCharacterCard(setPngTextChunks(tinyPng(), { ccv3: '%%% not base64 %%%' })))).toBe('IMPORT_CARD_INVALID');
    expect(codeOf(() => importCharacterCard(setPngTextChunks(tinyPng(), { ccv3: Buffer.from('{"spec":').toString('base64') })))).toBe('IMPORT_JSON_INVALID');
    const corrupted = v3Png.slice();
    corrupted[200] = (corrupted[200] ?? 0) ^ 0x01;
    expect(codeOf(() => importCharacterCard(corrupted))).toBe('PNG_CRC_MISMATCH');
    expect(codeOf(() => importCharacterCard(v3Png.subarray(0, 1000)))).toBe('PNG_INVALID');
    expect(codeOf(() => importCharacterCard(v3Png, { maxTextChunkBytes: 512 }))).toBe('IMPORT_TOO_LARGE');
  });
});

describe('importCharacterCardFile', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('reads PNG and JSON cards from a real directory, with size cap and abort', async () => {
    dir = await mkdtemp(join(tmpdir(), 'troupe-cards-'));
    const png = join(dir, '莉娅.png');
    const json = join(dir, 'lia.json');
    await writeFile(png, v3Png);
    await writeFile(json, v2Text);
    expect((await importCharacterCardFile(png)).character.displayName).toBe('小莉');
    expect((await importCharacterCardFile(json)).spec).toBe('chara_card_v2');
    await expect(importCharacterCardFile(png, { limits: { maxFileBytes: 100 } })).rejects.toMatchObject({ code: 'IMPORT_TOO_LARGE' });
    const reason = new Error('cancelled');
    const controller = new AbortController();
    controller.abort(reason);
    await expect(importCharacterCardFile(png, { signal: controller.signal })).rejects.toBe(reason);
    await expect(importCharacterCardFile(join(dir, 'missing.png'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
