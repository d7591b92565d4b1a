import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const POLL = { timeout: 30_000 };

describe.runIf(RUN_BROWSER_TESTS)('the server going away mid-reply, in headless Chromium', () => {
  const fx = setupWebFixture({ fakeModel: { reply: '回复：莉娅点亮了灯笼。', use: true }, browser: 'fail-on-page-errors' });
  let page: Page;

  beforeAll(async () => {
    page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=connection-lost`);
  });

  it('says in words that the connection was lost, and the line goes back into the box', async () => {
    fx.fake.holdNextStream();
    await page.getByTestId('chat-input').fill('服务器还在吗？');
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(async () => (await page.getByTestId('reply-streaming').locator('.message-body').textContent()) ?? '', POLL).toMatch(/^回复/);
    // The server stops (a crash or a restart): its connections end mid-stream.
    await fx.server.close();
    await expect.poll(async () => ((await page.getByRole('alert').count()) > 0 ? ((await page.getByRole('alert').textContent()) ?? '') : ''), POLL).toContain('connection to the server was lost');
    expect(await page.getByTestId('chat-input').inputValue()).toBe('服务器还在吗？');
  });
});
