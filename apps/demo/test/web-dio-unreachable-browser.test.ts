import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { CHROMIUM } from './support/browser.js';
import { type FakeDio, startFakeDio } from './support/fake-dio.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const skipBrowser = process.env.TROUPE_SKIP_BROWSER_TESTS === '1' || !existsSync(CHROMIUM);

describe.runIf(!skipBrowser)('the DIO panel when the service cannot be reached', () => {
  let dio: FakeDio;
  beforeAll(async () => {
    dio = await startFakeDio();
  });
  afterAll(async () => {
    await dio.close();
  });
  const fx = setupWebFixture({ env: () => ({ DIO_URL: dio.url, DIO_TOKEN: 'fake-token-123' }), browser: 'fail-on-page-errors' });

  it('shows the task status from the session log and, beside it, that the service could not be reached', async () => {
    await playTurn(fx.server.url, 'dio-unreachable', '从现在起莉娅都用短句回答，少用比喻。');
    dio.mode = 'http500';
    const page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=dio-unreachable`);
    await page.getByRole('tab', { name: /DIO/ }).click();
    await expect.poll(() => page.getByTestId('dio-task-status').getAttribute('data-status'), { timeout: 20_000 }).toBe('processing');
    const notice = page.getByTestId('dio-service-unreachable');
    expect(await notice.textContent()).toContain('DIO_UNAVAILABLE');
    expect(await page.getByTestId('dio-prompt-unknown').count()).toBe(1);
    await page.close();
  }, 60_000);
});
