import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

describe.runIf(RUN_BROWSER_TESTS)('a reasoning model’s thinking in headless Chromium', () => {
  const fx = setupWebFixture({ fakeModel: { reply: '<think>She is tired; keep it short.</think>\n\n*Lia yawns.* "Tomorrow."', use: true }, browser: true });
  let page: Page;

  beforeAll(async () => {
    page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=reasoning-view`);
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
