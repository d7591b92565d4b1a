import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './helpers.js';
import { expectError } from './support/api-client.js';
import { CORPUS_DIR, corpusBytes, upload } from './support/corpus.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const CORPUS = join(CORPUS_DIR, 'presets');
const ST_DEFAULT = join(CORPUS, 'p01-st-default.json');
const LUCID_LOOM = join(CORPUS, 'p02-lucid-loom-v3.3.json');

const cli = (...args: string[]) => runCliCaptured({}, ...args);

describe('preset check FILE', () => {
  it('SillyTavern Default: no slot as imported, prepared with the three markers moved and no warning left', async () => {
    const { code, text } = await cli('preset', 'check', ST_DEFAULT);
    expect(code).toBe(0);
    expect(text).toContain('SillyTavern chat-completion preset');
    // A SillyTavern preset is named after its file, as SillyTavern lists it.
    expect(text.split('\n')[0]).toMatch(/^p01-st-default: \d+ prompts/);
    expect(text).toContain('DIO cannot use it: [DIO_NO_SLOT]');
    expect(text).toContain('carries the definition: "Char Description" (charDescription) {{description}}');
    expect(text).toContain('Prepared for DIO: prepared');
    expect(text).toContain('DIO replaces: "roleplay" (dioRoleplay, the whole roleplay prompt)');
    expect(text).toContain('ok: no other prompt carries character text');
  });

  it('Lucid Loom: names each custom prompt that still carries the card fields; --absorb all makes it clean', async () => {
    const kept = await cli('preset', 'check', LUCID_LOOM);
    expect(kept.text).toContain(`warning: Prompt "Story Scenario" (c68f7851-9620-44c0-b451-bd063ca41529) still puts {{scenario}}`);
    expect(kept.text).toContain(`warning: Prompt "Character's Form" (4c19ce79-db61-48cb-8b22-b610c1bec9fc) still puts {{description}}, {{personality}}`);
    const absorbed = await cli('preset', 'check', LUCID_LOOM, '--absorb', 'all');
    expect(absorbed.text).not.toContain('warning:');
    expect(absorbed.text).toContain('ok: no other prompt carries character text');
  });

  it('--json prints the check with the prepared preset; a file that is not a preset is a clear error', async () => {
    const { text } = await cli('preset', 'check', ST_DEFAULT, '--json');
    const check = JSON.parse(text) as { asImported: { accepts: boolean }; prepared: { report: { status: string; clean: boolean }; preset: { prompts: { name: string }[] } } };
    expect(check.asImported.accepts).toBe(false);
    expect(check.prepared.report).toMatchObject({ status: 'prepared', clean: true });
    expect(check.prepared.preset.prompts.filter((p) => p.name === 'roleplay')).toHaveLength(1);
    const dir = await mkdtemp(join(tmpdir(), 'troupe-preset-'));
    try {
      writeFileSync(join(dir, 'bad.json'), '{"temperature": 1}');
      const bad = await cli('preset', 'check', join(dir, 'bad.json'));
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('[IMPORT_PRESET_INVALID]');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('POST /api/presets/check', () => {
  const fx = setupWebFixture();
  const { api } = fx;

  it('answers the pre-flight and the preparation for the preset view', async () => {
    const answer = await api('POST', '/api/presets/check', { preset: JSON.parse(readFileSync(LUCID_LOOM, 'utf8')) });
    expect(answer.status).toBe(200);
    expect(answer.body.asImported).toMatchObject({ accepts: false, reason: { code: 'DIO_NO_SLOT' } });
    expect(answer.body.prepared.preflight.accepts).toBe(true);
    expect(answer.body.prepared.preflight.warnings).toHaveLength(2);
    const absorbed = await api('POST', '/api/presets/check', { preset: JSON.parse(readFileSync(LUCID_LOOM, 'utf8')), absorb: 'all' });
    expect(absorbed.body.prepared.preflight.clean).toBe(true);
  });

  it('a Troupe preset that already has its slot is checked as it is; bad bodies are clear errors', async () => {
    const preset = { prompts: [{ identifier: 'c', name: 'roleplay', role: 'system', content: 'Lia.' }, { identifier: 'h', name: 'History', role: 'system', content: '', marker: 'chatHistory' }] };
    const answer = await api('POST', '/api/presets/check', { preset });
    expect(answer.body).toMatchObject({ format: 'troupe', asImported: { accepts: true, clean: true, replaces: { identifier: 'c', name: 'roleplay', rule: 'roleplay' } }, prepared: { report: { status: 'ready' } } });
    expectError(await api('POST', '/api/presets/check', { preset: { temperature: 1 } }), 400, 'IMPORT_PRESET_INVALID');
    expectError(await api('POST', '/api/presets/check', { nope: 1 }), 400, 'INVALID_REQUEST');
  });

  // The library's import route, with the preparation option next to the file name.
  const importPreset = async (file: string, prepareForDio?: string) => {
    const query = new URLSearchParams({ fileName: file, ...(prepareForDio ? { prepareForDio } : {}) });
    const response = await fetch(`${fx.server.url}/api/presets?${query}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from(corpusBytes('presets', file)) });
    return { status: response.status, body: await response.json() };
  };

  it('the preset library prepares for DIO on import (?prepareForDio) or later, and stores the report', async () => {
    const plain = await upload(fx.server.url, '/api/presets', corpusBytes('presets', 'p01-st-default.json'), 'Default.json');
    expect(plain.body).toMatchObject({ dioAccepts: false, dioPreparation: null });
    const prepared = await api('POST', `/api/presets/${plain.body.id}/prepare-for-dio`, {});
    expect(prepared.status).toBe(200);
    expect(prepared.body).toMatchObject({ dioAccepts: true, report: { dio: { accepts: true, name: 'roleplay' }, characterText: [] }, dioPreparation: { status: 'prepared', clean: true } });
    expect((await api('GET', `/api/presets/${plain.body.id}`)).body.dioPreparation.disabled).toEqual(['charDescription', 'charPersonality', 'scenario']);

    const loom = await importPreset('p02-lucid-loom-v3.3.json', 'markers');
    expect(loom.body).toMatchObject({ dioAccepts: true, dioPreparation: { status: 'prepared', clean: false } });
    expect(loom.body.report.warnings.filter((w: { code: string }) => w.code === 'DIO_CHARACTER_TEXT_REMAINS')).toHaveLength(2);
    const absorbed = await importPreset('p02-lucid-loom-v3.3.json', 'all');
    expect(absorbed.body.dioPreparation).toMatchObject({ status: 'prepared', clean: true });

    expectError(await api('POST', '/api/presets/default/prepare-for-dio', {}), 409, 'LIBRARY_READ_ONLY');
    expectError(await api('POST', `/api/presets/${plain.body.id}/prepare-for-dio`, { absorb: 'everything' }), 400, 'INVALID_REQUEST');
    expect((await importPreset('p01-st-default.json', 'yes')).status).toBe(400);
  });
});
