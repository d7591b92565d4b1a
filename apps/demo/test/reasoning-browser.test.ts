import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserFixture, CHROMIUM, launchBrowser } from './support/browser.js';
import { type FakeOpenAi, startFakeOpenAi } from './support/fake-openai.js';
import { startWebFixture, type WebFixture } from './support/web-fixture.js';

const skipBrowser = process.env.TROUPE_SKIP_BROWSER_TESTS === '1';

describe.runIf(!skipBrowser && existsSync(CHROMIUM))('a reasoning model’s thinking in headless Chromium', () => {
  let fx: WebFixture;
  let browser: BrowserFixture;
  let page: Page;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fx = await startWebFixture();
    fake = await startFakeOpenAi('<think>She is tired; keep it short.</think>\n\n*Lia yawns.* "Tomorrow."');
    const saved = await fetch(`${fx.server.url}/api/settings/model`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ baseUrl: fake.baseUrl, model: 'fake-rp' }),
    });
    expect(saved.status).toBe(200);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=reasoning-view`);
  });

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
    await fake?.close();
  });

  it('shows the reasoning collapsed above the reply, and the reply without it, also after a reload', async () => {
    await page.getByTestId('chat-input').fill('Will you help me?');
    await page.getByTestId('chat-send').click();
    const reply = page.getByTestId('reply').last();
    await expect.poll(async () => reply.textContent(), { timeout: 20_000 }).toContain('Tomorrow.');
    expect(await reply.textContent()).not.toContain('<think>');
    const reasoning = reply.getByTestId('reasoning');
    expect(await reasoning.getAttribute('open')).toBeNull();
    expect(await reasoning.locator('pre').isVisible()).toBe(false);
    await reasoning.locator('summary').click();
    expect(await reasoning.locator('pre').textContent()).toBe('She is tired; keep it short.');
    await page.reload();
    const again = page.getByTestId('reply').last();
    await expect.poll(async () => again.textContent(), { timeout: 20_000 }).toContain('Tomorrow.');
    expect(await again.getByTestId('reasoning').getAttribute('open')).toBeNull();
  });
});
