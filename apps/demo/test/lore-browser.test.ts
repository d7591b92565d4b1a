import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS_DIR } from './support/corpus.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// The prerequisite (Chromium present or skipped on purpose) is asserted in web-browser.test.ts.
describe.runIf(RUN_BROWSER_TESTS)('world info in the web app (headless Chromium)', () => {
  const fx = setupWebFixture({ browser: true });

  it('imports a world-info file, attaches it to the session, plays a turn and shows which entry fired and why', async () => {
    const page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=lore-ui`);
    await page.getByRole('tab', { name: /世界书/ }).click();
    await page.getByTestId('lore-panel').waitFor();
    await page.getByTestId('lore-import').setInputFiles(join(CORPUS_DIR, 'lorebooks', 'l01-st-eldoria.json'));
    // The book is named after its file (as in SillyTavern).
    const attach = page.getByTestId('lore-attach-l01-st-eldoria');
    await attach.waitFor();
    await attach.check();
    await expect.poll(async () => (await fx.demo.storage.sessions.read('lore-ui')).some((e) => e.type === 'demo/lorebooks-attached')).toBe(true);

    await page.getByTestId('chat-input').fill('Are there beasts in these woods?');
    await page.getByTestId('chat-send').click();
    await page.getByTestId('reply').last().waitFor();
    const fired = page.getByTestId('lore-fired');
    await expect.poll(async () => (await fired.locator('[data-entry="l01-st-eldoria.1"]').textContent()) ?? '').toContain('“beasts”');
    expect(await fired.locator('[data-entry="l01-st-eldoria.1"]').textContent()).toContain('(before)');
    expect(fx.pageErrors).toEqual([]);
  });
});
