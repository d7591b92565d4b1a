import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { playTurn } from './support/api-client.js';
import { RUN_BROWSER_TESTS } from './support/browser.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

// The chat view of a session whose log is damaged inside tells the player which file and line,
// not "something unexpected went wrong".
describe.runIf(RUN_BROWSER_TESTS)('a damaged session opened in headless Chromium', () => {
  const fx = setupWebFixture({ browser: 'fail-on-page-errors' });

  beforeAll(async () => {
    for (const text of ['Hello.', 'Good night.']) expect((await playTurn(fx.server.url, 'damaged-ui', text)).at(-1)?.event).toBe('result');
    const log = join(fx.dataDir, 'sessions', 'damaged-ui', 'events.jsonl');
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines[1] = (lines[1] ?? '').slice(0, 30);
    await writeFile(log, lines.join('\n'));
  }, 120_000);

  it('shows SESSION_CORRUPT’s message naming events.jsonl and the line', async () => {
    const page = await fx.browser.context.newPage();
    try {
      await page.goto(`${fx.server.url}/#session=damaged-ui`);
      const alert = page.getByRole('alert').filter({ hasText: 'events.jsonl' });
      await alert.waitFor();
      expect(await alert.textContent()).toContain('sessions/damaged-ui/events.jsonl line 2 ');
    } finally {
      await page.close();
    }
  });
});
