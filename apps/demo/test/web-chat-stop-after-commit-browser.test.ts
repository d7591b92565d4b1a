import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlowContinuityModel, startSlowContinuityModel } from './support/slow-continuity-model.js';
import { pointAtModelServer } from './support/web-fixture.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const SESSION = 'stop-after-commit';
const POLL = { timeout: 30_000 };

// A story turn commits its reply and then settles it into the story (the continuity worker); the
// model holds that call until the test releases it, so the turn sits after its commit.
describe.runIf(RUN_BROWSER_TESTS)('Stop once the reply is saved (headless Chromium)', () => {
  let model: SlowContinuityModel;
  let page: Page;
  let release: () => void = () => {};

  // Registered before the fixture: the model stops after the demo, as the demo's last calls may still reach it.
  beforeAll(async () => {
    model = await startSlowContinuityModel(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
  });
  afterAll(async () => {
    await model?.close();
  });

  const fx = setupWebFixture({ browser: true });

  beforeAll(async () => {
    await pointAtModelServer(fx, model.baseUrl, 'slow');
    await fx.demo.workspaces.create('harbour', { name: 'Harbour' });
    const selected = await fetch(`${fx.server.url}/api/sessions/${SESSION}/story`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ storyId: 'harbour' }) });
    expect(selected.status).toBe(200);
    page = await fx.browser.context.newPage();
    await page.goto(`${fx.server.url}/#session=${SESSION}`);
  });

  afterAll(() => {
    release();
  });

  it('cannot undo a saved reply: Stop waits while the story settles, and the reply stays', async () => {
    await page.getByTestId('chat-input').fill('Light the lamp.');
    await page.getByTestId('chat-input').press('Enter');
    const stop = page.getByTestId('chat-stop');
    await stop.waitFor();
    // kernel/turn-committed arrived while the continuity call is held: the reply is saved.
    await expect.poll(() => stop.isDisabled(), POLL).toBe(true);
    expect(await stop.textContent()).toContain('Saved');
    const committed = (await fx.demo.storage.sessions.read(SESSION)).filter((event) => event.type === 'kernel/turn-committed');
    expect(committed).toHaveLength(1);

    release();
    await expect.poll(() => page.getByTestId('reply').count(), POLL).toBe(1);
    expect(await page.getByTestId('reply').textContent()).toContain('The lamp flickers on.');
    expect(await page.getByTestId('chat-stopped').count()).toBe(0);
    expect(await page.getByTestId('chat-input').inputValue()).toBe('');
    await expect.poll(() => model.continuityCalls(), POLL).toBeGreaterThan(0);
  });
});
