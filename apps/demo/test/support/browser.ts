import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium; the tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser suites run: Chromium is there and they were not skipped on purpose
 * (`TROUPE_SKIP_BROWSER_TESTS=1`). web-browser.test.ts fails when Chromium is missing without that opt-out.
 */
export const RUN_BROWSER_TESTS = process.env.TROUPE_SKIP_BROWSER_TESTS !== '1' && existsSync(CHROMIUM);

/** A headless Chromium with a fresh profile directory. */
export interface BrowserFixture {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh `--user-data-dir` (playwright's persistent context
 * passes it) and no background network, sync or component updates.
 * @returns the browser context and `close()` (which removes the profile)
 */
export async function launchBrowser(): Promise<BrowserFixture> {
  const profile = await mkdtemp(join(tmpdir(), 'troupe-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1360, height: 860 },
    locale: 'zh-CN',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
