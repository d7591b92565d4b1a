import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR } from './support/corpus.js';
import { type FakeToolServer, startFakeToolServer } from './support/fake-tool-server.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';


describe.runIf(RUN_BROWSER_TESTS)('DIO pre-flight and notices in headless Chromium', () => {
  let server: FakeToolServer;
  // Registered before the fixture: the tool server stops after the demo, as the demo's last calls may still reach it.
  beforeAll(async () => {
    server = await startFakeToolServer('hopeless');
  });
  afterAll(async () => {
    await server?.close();
  });

  const fx = setupWebFixture({ browser: true });
  const { api } = fx;
  let page: Page;

  beforeAll(async () => {
    page = await fx.browser.context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${fx.server.url}/#session=dio-notices`);
  });

  it('imports SillyTavern Default, sees DIO cannot use it, prepares it for DIO and sees the report', async () => {
    await page.getByTestId('view-presets').click();
    await page.getByTestId('import-preset').setInputFiles(join(CORPUS_DIR, 'presets', 'p01-st-default.json'));
    await expect.poll(async () => (await page.getByTestId('preset-dio').textContent()) ?? '').toContain('DIO cannot use this preset');
    await page.getByTestId('prepare-for-dio').click();
    await expect.poll(async () => (await page.getByTestId('preset-dio').textContent()) ?? '').toContain('DIO can use this preset');
    const report = (await page.getByTestId('preset-dio-preparation').textContent()) ?? '';
    expect(report).toContain('prepared');
    expect(report).toContain('the compiled prompt will be the only character definition');
    expect(report).toContain('"Char Description", "Char Personality", "Scenario", which are now off');
  });

  it('when the director model can offer no tool at all, the chat says so once', async () => {
    const saved = await api('PUT', '/api/settings/model', { baseUrl: server.baseUrl, model: 'fake-model' });
    expect(saved.status).toBe(200);
    await page.getByTestId('view-chat').click();
    for (const text of ['从现在起莉娅都用短句回答。', '从现在起少用比喻。']) {
      const before = await page.getByTestId('reply').count();
      await page.getByTestId('chat-input').fill(text);
      await page.getByTestId('chat-send').click();
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: 30_000 }).toBe(before + 1);
      await expect.poll(() => page.getByTestId('director-notice').count()).toBe(1);
    }
    expect(await page.getByTestId('director-notice').textContent()).toContain('lasting requirements (DIO) may not be submitted');
    const unavailable = server.requests.filter((body) => body.messages[0]?.content?.includes('Answer with exactly one JSON object'));
    expect(unavailable.length).toBeGreaterThan(0);
  });
});
