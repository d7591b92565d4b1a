import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR } from './support/corpus.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// Polls wait for the page, not for a time: the generous cap only matters on a loaded machine.
const POLL = { timeout: 20_000 };
const XSS = '<img src=x onerror="window.__cardXss=1">';

// A JSON card whose text fields carry HTML: it must show as the characters it is made of.
const jsonCard = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Vess',
    description: `${XSS} {{char}} keeps the lighthouse ledger for {{user}}.`,
    personality: 'wry',
    scenario: 'The ledger room.',
    first_mes: `*{{char}} looks up.* Evening, {{user}}. ${XSS}`,
    alternate_greetings: ['*{{char}} closes the ledger.* Back so soon, {{user}}?', '*Rain on the glass.*'],
  },
};

describe.runIf(RUN_BROWSER_TESTS)('character library, presets, personas and chats in headless Chromium', () => {
  const fx = setupWebFixture({ fakeModel: { reply: '*Vess taps the ledger.* The model server wrote this line.' }, browser: 'fail-on-page-errors' });
  let page: Page;
  let jsonCardPath = '';

  beforeAll(async () => {
    jsonCardPath = join(fx.dataDir, 'vess.json');
    await writeFile(jsonCardPath, JSON.stringify(jsonCard));
    page = await fx.browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${fx.server.url}/#session=library-start`);
  });

  const sendLine = async (text: string): Promise<string> => {
    const before = await page.getByTestId('reply').count();
    await page.getByTestId('chat-input').fill(text);
    await page.getByTestId('chat-send').click();
    await expect.poll(() => page.getByTestId('reply').count(), { timeout: 30_000 }).toBe(before + 1);
    return (await page.getByTestId('reply').last().textContent()) ?? '';
  };

  it('imports a PNG card and a JSON card and shows them with avatars; card HTML renders as text', async () => {
    await page.getByTestId('view-characters').click();
    await page.getByTestId('import-character').setInputFiles(join(CORPUS_DIR, 'cards', 'c06-lumia-official-v3.png'));
    await page.getByTestId('import-notice').waitFor();
    await page.getByTestId('import-character').setInputFiles(jsonCardPath);
    await expect.poll(() => page.getByTestId('character-list').locator('li').count(), POLL).toBe(2);
    const lumia = page.getByTestId('character-list').locator('li', { hasText: 'Lumia' });
    expect(await lumia.locator('img.avatar').count()).toBe(1);
    await page.getByTestId('character-list').locator('li', { hasText: 'Vess' }).getByRole('button').click();
    await expect.poll(() => page.getByTestId('field-description').inputValue(), POLL).toContain(XSS);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  });

  it('starts a chat that opens with the greeting, and swipes to an alternate greeting', async () => {
    await page.getByTestId('start-chat').click();
    await page.getByTestId('chat-header').waitFor();
    expect(await page.getByTestId('chat-character').textContent()).toBe('Vess');
    const greeting = page.getByTestId('greeting-text');
    // Rendered as Markdown: the *action* is emphasis, the card's HTML is inert text.
    expect(await greeting.textContent()).toBe(`Vess looks up. Evening, User. ${XSS}`);
    expect(await greeting.locator('em').textContent()).toBe('Vess looks up.');
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __cardXss?: number }).__cardXss)).toBeUndefined();
    expect(await page.getByTestId('swipe-position').textContent()).toBe('1/3');
    await page.getByTestId('swipe-next').click();
    await expect.poll(() => greeting.textContent(), POLL).toBe('Vess closes the ledger. Back so soon, User?');
    expect(await page.getByTestId('swipe-position').textContent()).toBe('2/3');
    // The offline simulation says plainly that it is answering.
    expect(await page.getByTestId('offline-note').isVisible()).toBe(true);
  });

  it('plays turns as the chat character', async () => {
    const first = await sendLine('What are you writing in the ledger?');
    expect(first).toContain('Vess');
    const second = await sendLine('Is the lamp lit tonight?');
    expect(second.length).toBeGreaterThan(4);
    expect(await page.getByTestId('user-line').count()).toBe(2);
    const chatId = new URL(page.url()).hash.replace('#session=', '');
    const prepared = (await fx.demo.turnInputFor(chatId, 'x')).attributes?.['targetPromptId'];
    expect(prepared).toMatch(/^character-/);
  });

  it('switches persona and preset for the chat', async () => {
    const chatUrl = page.url();
    await page.getByTestId('view-personas').click();
    await page.getByTestId('persona-name').fill('Ash');
    await page.getByTestId('persona-description').fill('A courier with a lantern.');
    await page.getByTestId('create-persona').click();
    await page.getByTestId('persona-ash').waitFor();

    await page.getByTestId('view-presets').click();
    await page.getByTestId('import-preset').setInputFiles(join(CORPUS_DIR, 'presets', 'p01-st-default.json'));
    await expect.poll(() => page.getByTestId('preset-list').locator('li').count(), POLL).toBe(2);
    await expect.poll(async () => (await page.getByTestId('preset-dio').textContent()) ?? '', POLL).toContain('DIO cannot use this preset');

    await page.getByTestId('view-chat').click();
    expect(page.url()).toBe(chatUrl);
    await page.getByTestId('chat-persona').selectOption({ label: 'Ash' });
    await expect.poll(() => page.getByTestId('greeting-text').textContent(), POLL).toBe('Vess closes the ledger. Back so soon, Ash?');
    const presetOption = await page.getByTestId('chat-preset').locator('option').nth(1).getAttribute('value');
    await page.getByTestId('chat-preset').selectOption(presetOption ?? '');
    await expect.poll(async () => (await page.getByTestId('chat-dio').textContent()) ?? '', POLL).toContain('✗');
    const reply = await sendLine('Hello from Ash.');
    expect(reply.length).toBeGreaterThan(4);
  });

  it('branches the chat from its first reply into a chat of its own: same character, persona and greeting', async () => {
    const parent = new URL(page.url()).hash.replace('#session=', '');
    expect(await page.getByTestId('user-line').count()).toBe(3);
    await page.getByTestId('reply-row').first().getByTestId('reply-branch').click();
    await expect.poll(() => new URL(page.url()).hash, POLL).toMatch(/^#session=chat-[0-9a-f]{12}$/);
    await expect.poll(() => page.getByTestId('user-line').count(), POLL).toBe(1);
    expect(await page.getByTestId('chat-character').textContent()).toBe('Vess');
    expect(await page.getByTestId('chat-persona').locator('option:checked').textContent()).toContain('Ash');
    await expect.poll(() => page.getByTestId('greeting-text').textContent(), POLL).toBe('Vess closes the ledger. Back so soon, Ash?');
    const reply = await sendLine('A new road from here.');
    expect(reply.length).toBeGreaterThan(4);
    // The parent chat still has all three exchanges.
    const branch = new URL(page.url()).hash.replace('#session=', '');
    expect(branch).not.toBe(parent);
    expect(((await (await fetch(`${fx.server.url}/api/sessions/${parent}/messages`)).json()) as { messages: unknown[] }).messages).toHaveLength(3);
  });

  it('sets a model URL against a loopback OpenAI-compatible server and plays a turn through it', async () => {
    await page.getByTestId('view-model').click();
    await page.getByTestId('model-base-url').fill(fx.fake.baseUrl);
    await page.getByTestId('model-api-key').fill('sk-browser-test');
    await page.getByTestId('test-connection').click();
    await page.getByTestId('model-list').waitFor();
    expect(await page.getByTestId('model-list').textContent()).toContain('fake-rp');
    await page.getByTestId('model-list').getByRole('button', { name: 'fake-rp' }).click();
    // Text that is not a whole number is refused in the page, never saved as "cleared".
    await page.getByTestId('model-max-tokens').fill('8k');
    await page.getByTestId('save-model-settings').click();
    await expect.poll(async () => (await page.getByTestId('model-error').textContent()) ?? '', POLL).toContain('write a whole number');
    expect(await page.getByTestId('model-max-tokens').inputValue()).toBe('8k');
    await page.getByTestId('model-max-tokens').fill('256');
    await page.getByTestId('save-model-settings').click();
    await expect.poll(async () => (await page.getByTestId('model-source').textContent()) ?? '', POLL).toContain('saved below');
    // The key stays on the server.
    expect(await page.getByTestId('model-api-key').inputValue()).toBe('');
    expect(await page.content()).not.toContain('sk-browser-test');

    await page.getByTestId('view-chat').click();
    await expect.poll(() => page.getByTestId('offline-note').count(), POLL).toBe(0);
    const reply = await sendLine('Anything from the server?');
    expect(reply).toContain('The model server wrote this line.');
    expect(fx.fake.requests.some((r) => r.body.model === 'fake-rp')).toBe(true);
  });

  it('deleting a preset or a persona a chat uses asks first, saying the chat goes back to the default', async () => {
    const asked: string[] = [];
    const record = (dialog: { message(): string }) => void asked.push(dialog.message());
    page.on('dialog', record);
    await page.getByTestId('view-presets').click();
    await page.getByTestId('preset-list').locator('li').nth(1).getByRole('button').click();
    await page.getByTestId('delete-preset').click();
    await expect.poll(() => page.getByTestId('preset-list').locator('li').count(), POLL).toBe(1);
    await page.getByTestId('view-personas').click();
    await page.getByTestId('persona-ash').getByTestId('delete-persona').click();
    await expect.poll(() => page.getByTestId('persona-ash').count(), POLL).toBe(0);
    page.off('dialog', record);
    expect(asked).toEqual([expect.stringMatching(/p01-st-default[\s\S]*default preset/), expect.stringMatching(/Ash[\s\S]*default persona/)]);
    const { presets } = await fx.demo.library.presets.list();
    expect(presets.map((preset) => preset.id)).toEqual(['default']);
  });

  it('deletes a character', async () => {
    await page.getByTestId('view-characters').click();
    await page.getByTestId('character-list').locator('li', { hasText: 'Lumia' }).getByRole('button').click();
    await page.getByTestId('character-editor').waitFor();
    await page.getByTestId('delete-character').click();
    await expect.poll(() => page.getByTestId('character-list').locator('li').count(), POLL).toBe(1);
    const { characters } = await fx.demo.library.characters.list();
    expect(characters.map((c) => c.name)).toEqual(['Vess']);
  });
});
