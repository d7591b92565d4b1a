import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Demo } from '../../src/compose.js';
import type { RunningWebServer } from '../../src/server/index.js';
import { type ApiClient, apiClient } from './api-client.js';
import type { BrowserFixture } from './browser.js';
import type { FakeOpenAi, FakeReply } from './fake-openai.js';
import { pointAtModelServer, startWebFixture, type WebFixture } from './web-fixture.js';

/** What {@link setupWebFixture} starts besides the demo and its web server. */
export interface WebFixtureOptions {
  /** Where the built UI is (default: the real build output); read when the fixture starts. */
  readonly staticDir?: () => string;
  /** The demo's environment (default none: the offline model); read when the fixture starts. */
  readonly env?: () => Readonly<Record<string, string>>;
  /**
   * A fake OpenAI-compatible model server answering `reply` (see `startFakeOpenAi`), started after
   * the demo; with `use`, the demo is pointed at it (`PUT /api/settings/model`) before any test.
   */
  readonly fakeModel?: { readonly reply: FakeReply; readonly use?: boolean };
  /**
   * Headless Chromium (`launchBrowser`), launched last; uncaught page errors are collected in
   * `pageErrors`. `'fail-on-page-errors'`: every test also fails when the page threw during it.
   */
  readonly browser?: true | 'fail-on-page-errors';
}

/** The running fixture, read inside tests and hooks (reading it before `beforeAll` ran throws). */
export interface WebHandles {
  readonly demo: Demo;
  readonly server: RunningWebServer;
  /** The demo's fresh temp data directory. */
  readonly dataDir: string;
  /** A JSON client of the web server. */
  readonly api: ApiClient;
  /** The fake model server (only with `fakeModel`). */
  readonly fake: FakeOpenAi;
  /** The browser (only with `browser`). */
  readonly browser: BrowserFixture;
  /** Uncaught errors of the browser's pages, in order (only with `browser`). */
  readonly pageErrors: string[];
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`setupWebFixture: no ${what} (not started yet, or not asked for in the options)`);
  return value;
}

/**
 * Registers, in the calling file or `describe`, the `beforeAll`/`afterAll` pair that starts a demo
 * over a fresh temp directory with its web server on a free loopback port (`startWebFixture`),
 * plus the fake model and browser the options ask for, and stops them all after the last test
 * (browser, then demo, then model). One server serves every test of the scope, as each test uses
 * ids of its own. Hooks a test file registers before this call run before it starts and after it
 * stops (vitest's `stack` hook order); hooks registered after it can use the handles.
 * @param options - what else to start
 * @returns the handles
 */
export function setupWebFixture(options: WebFixtureOptions = {}): WebHandles {
  let fx: WebFixture | undefined;
  let fake: FakeOpenAi | undefined;
  let browser: BrowserFixture | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const staticDir = options.staticDir?.();
    const env = options.env?.();
    fx = await startWebFixture({ ...(staticDir === undefined ? {} : { staticDir }), ...(env === undefined ? {} : { env }) });
    if (options.fakeModel) {
      const { startFakeOpenAi } = await import('./fake-openai.js');
      fake = await startFakeOpenAi(options.fakeModel.reply);
      if (options.fakeModel.use) await pointAtModelServer(fx, fake.baseUrl);
    }
    if (options.browser) {
      // Loaded only here: the API tests never load playwright.
      const { launchBrowser } = await import('./browser.js');
      browser = await launchBrowser();
      browser.context.on('weberror', (error) => pageErrors.push(error.error().message));
    }
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
    await fake?.close();
  });
  if (options.browser === 'fail-on-page-errors') {
    afterEach(() => {
      expect(pageErrors.splice(0)).toEqual([]);
    });
  }

  return {
    get demo() {
      return started(fx, 'fixture').demo;
    },
    get server() {
      return started(fx, 'fixture').server;
    },
    get dataDir() {
      return started(fx, 'fixture').dataDir;
    },
    api: apiClient(() => started(fx, 'fixture').server.url),
    get fake() {
      return started(fake, 'fake model');
    },
    get browser() {
      return started(browser, 'browser');
    },
    pageErrors,
  };
}
