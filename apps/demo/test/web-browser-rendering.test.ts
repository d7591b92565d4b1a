import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { corpusBytes, upload } from './support/corpus.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// How a chat looks: replies as sanitised Markdown (a hostile reply stays inert), a phone-width
// layout without horizontal scrolling, and dark mode (the system's, or the player's stored choice).
// Screenshots go to a temp directory (or TROUPE_TEST_ARTIFACTS) for a person to look at.

const HOSTILE_REPLY = [
  '## 场景',
  '*莉娅擦着吧台。* "你来了，" 她说，“外面下雨。”',
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'img\'; alert(1)">',
  '[点我](javascript:window.__pwned=\'link\')',
  '| 物品 | 数量 |\n|---|---:|\n| 一把很长很长的钥匙_没有空格的名字_一直延伸下去_直到超过手机屏幕的宽度为止_OneVeryLongUnbrokenInventoryWordThatWouldOverflow | 1 |',
].join('\n\n');

describe.runIf(RUN_BROWSER_TESTS)('message rendering, phone layout and dark mode in headless Chromium', () => {
  const fx = setupWebFixture({ browser: true });
  const { api, pageErrors } = fx;
  let artifacts: string;
  let turnId = '';
  const dialogs: string[] = [];

  beforeAll(async () => {
    artifacts = process.env.TROUPE_TEST_ARTIFACTS ?? (await mkdtemp(join(tmpdir(), 'troupe-screens-')));
    fx.browser.context.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    // A played turn whose reply is then edited to hostile Markdown: what a model could answer.
    const messages = await playTurn(fx.server.url, 'render-1', '你好，莉娅。');
    const result = messages.find((message) => message.event === 'result')?.data as { turnId: string };
    turnId = result.turnId;
    await fx.demo.harness.editTurn({ sessionId: 'render-1', turnId, reply: HOSTILE_REPLY });
  });
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
    expect(dialogs.splice(0)).toEqual([]);
  });

  const openChat = async (page: Page) => {
    await page.goto(`${fx.server.url}/#session=render-1`);
    await page.getByTestId('reply').last().getByRole('heading', { name: '场景' }).waitFor();
  };

  const screenshot = async (page: Page, name: string) => {
    const path = join(artifacts, name);
    await page.screenshot({ path, fullPage: true });
    const bytes = await readFile(path);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    console.info(`screenshot: ${path}`);
  };

  it('renders a reply as Markdown: a heading, actions and dialogue, and its HTML inert', async () => {
    const page = await fx.browser.context.newPage();
    try {
      await openChat(page);
      const reply = page.getByTestId('reply').last();
      expect(await reply.locator('h2').textContent()).toBe('场景');
      expect(await reply.locator('em').first().textContent()).toBe('莉娅擦着吧台。');
      expect((await reply.locator('q.dialogue').allTextContents()).slice(0, 2)).toEqual(['"你来了，"', '“外面下雨。”']);
      // The HTML is shown as text, never run: no script or img element, no on* attribute anywhere.
      expect(await reply.textContent()).toContain('<script>');
      expect(await reply.locator('script, img, iframe, [style]').count()).toBe(0);
      const handlers = await page.evaluate(() => Array.from(document.querySelectorAll('*')).flatMap((element) => element.getAttributeNames().filter((name) => name.toLowerCase().startsWith('on'))));
      expect(handlers).toEqual([]);
      // The javascript: link is no link.
      expect(await reply.locator('a').count()).toBe(0);
      expect(await reply.locator('table td.align-right').textContent()).toBe('1');
      await reply.getByText('点我').click();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    } finally {
      await page.close();
    }
  });

  it('shows each message’s token count and, behind the prompt button, the actor’s prompt block by block', async () => {
    const page = await fx.browser.context.newPage();
    try {
      await openChat(page);
      const counts = (await api('GET', '/api/sessions/render-1/token-counts')).body.messages[0] as { input: number; reply: number };
      const reply = page.getByTestId('reply').last();
      await expect.poll(() => reply.getByTestId('token-count').textContent()).toBe(`${counts.reply} tokens`);
      expect(await page.getByTestId('user-line').last().getByTestId('token-count').textContent()).toBe(`${counts.input} tokens`);
      await reply.getByRole('button', { name: /提示词构成|prompt itemization/i }).click();
      const view = page.getByTestId('prompt-view');
      await view.getByTestId('prompt-block').first().waitFor();
      const recorded = (await api('GET', `/api/sessions/render-1/turns/${turnId}/prompt`)).body as { blocks: unknown[]; totalTokens: number };
      expect(await view.getByTestId('prompt-block').count()).toBe(recorded.blocks.length);
      expect(await view.getByTestId('prompt-total').textContent()).toContain(`共 ${recorded.totalTokens} tokens`);
      expect(await view.locator('[data-testid="prompt-block"][data-source="input"]').textContent()).toContain('你好，莉娅。');
      await screenshot(page, 'prompt-view.png');
      await page.keyboard.press('Escape');
      await view.waitFor({ state: 'detached' });
    } finally {
      await page.close();
    }
  });

  it('fits a 390 px wide screen without horizontal scrolling', async () => {
    const page = await fx.browser.context.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await openChat(page);
      const widths = await page.evaluate(() => {
        const root = document.scrollingElement as Element;
        return { scroll: root.scrollWidth, client: root.clientWidth };
      });
      expect(widths.client).toBe(390);
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      // The send button is on the screen, not pushed off it.
      const send = await page.getByTestId('chat-send').boundingBox();
      expect((send?.x ?? 0) + (send?.width ?? 0)).toBeLessThanOrEqual(390);
      await screenshot(page, 'chat-390px.png');
    } finally {
      await page.close();
    }
  });

  it('the library views fit a 390 px wide screen too: personas, a preset with its buttons, a card with a long name', async () => {
    await api('POST', '/api/personas', { name: 'Rook', description: 'A courier.' });
    await upload(fx.server.url, '/api/presets', corpusBytes('presets', 'p02-lucid-loom-v3.3.json'), 'Lucid Loom.json');
    const card = { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Lumia, Weaver of the Lucid Loom and Keeper of Every Unbroken Thread', description: 'x' } };
    await upload(fx.server.url, '/api/characters', new TextEncoder().encode(JSON.stringify(card)), 'long.json');
    const page = await fx.browser.context.newPage();
    // Every control of the view ends inside the screen, and the page does not scroll sideways.
    const outside = () =>
      page.evaluate(() => {
        const root = document.scrollingElement as Element;
        const cut = Array.from(document.querySelectorAll('button, input, select, textarea, .card-name'))
          .filter((element) => (element as HTMLElement).offsetParent !== null)
          .filter((element) => element.getBoundingClientRect().right > root.clientWidth + 1)
          .map((element) => `${element.tagName.toLowerCase()} "${(element.textContent ?? '').trim().slice(0, 40)}"`);
        return { cut, scroll: root.scrollWidth, client: root.clientWidth };
      });
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await openChat(page);
      for (const view of ['personas', 'presets', 'characters']) {
        await page.getByTestId(`view-${view}`).click();
        if (view === 'presets') await page.getByTestId('preset-list').getByRole('button', { name: /Lucid Loom/ }).click();
        if (view === 'presets') await page.getByTestId('preset-detail').waitFor();
        if (view === 'personas') await page.getByText('Rook').first().waitFor();
        if (view === 'characters') await page.getByText('Lumia, Weaver').first().waitFor();
        const { cut, scroll, client } = await outside();
        expect({ view, cut }).toEqual({ view, cut: [] });
        expect(scroll).toBeLessThanOrEqual(client);
        await screenshot(page, `${view}-390px.png`);
      }
    } finally {
      await page.close();
    }
  });

  it('follows the system’s dark scheme, and the toggle overrides it and is remembered', async () => {
    const page = await fx.browser.context.newPage();
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor || getComputedStyle(document.documentElement).backgroundColor);
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    try {
      await page.emulateMedia({ colorScheme: 'dark' });
      await openChat(page);
      expect(await theme()).toBe('dark');
      expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe('rgb(21, 23, 26)');
      await screenshot(page, 'chat-dark.png');
      // The system turns light: followed at once while the choice is "system".
      await page.emulateMedia({ colorScheme: 'light' });
      await expect.poll(theme).toBe('light');
      // The player picks dark: it stays dark on a light system, also after a reload.
      await page.getByTestId('theme-select').selectOption('dark');
      expect(await theme()).toBe('dark');
      expect(await page.evaluate(() => localStorage.getItem('troupe.theme'))).toBe('dark');
      await page.reload();
      await page.getByTestId('reply').last().waitFor();
      expect(await theme()).toBe('dark');
      expect(await page.getByTestId('theme-select').inputValue()).toBe('dark');
      expect(await background()).not.toBe('');
      // Back to following the system: the stored choice is gone.
      await page.getByTestId('theme-select').selectOption('system');
      expect(await theme()).toBe('light');
      expect(await page.evaluate(() => localStorage.getItem('troupe.theme'))).toBeNull();
    } finally {
      await page.close();
    }
  });
});
