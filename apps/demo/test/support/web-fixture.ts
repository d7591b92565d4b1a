import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeDemo, type Demo } from '../../src/compose.js';
import { type RunningWebServer, startWebServer } from '../../src/server/index.js';

/** A demo over a fresh temp directory with its web server on a free loopback port. */
export interface WebFixture {
  readonly demo: Demo;
  readonly server: RunningWebServer;
  readonly dataDir: string;
  /** Stops the server and the demo and removes the temp directory. */
  close(): Promise<void>;
}

/** How {@link startWebFixture} composes the demo. */
export interface WebFixtureSetup {
  /** Where the built UI is (default: the real build output). */
  readonly staticDir?: string;
  /** The demo's environment (default none: the offline model). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Starts a demo (offline model unless `env` names one, in-process DIO service) and its web server.
 * @param setup - the UI folder and the environment
 */
export async function startWebFixture(setup: WebFixtureSetup = {}): Promise<WebFixture> {
  const dataDir = await mkdtemp(join(tmpdir(), 'troupe-web-'));
  const demo = await composeDemo({ dataDir, env: { ...setup.env } });
  const server = await startWebServer(demo, { port: 0, ...(setup.staticDir ? { staticDir: setup.staticDir } : {}) });
  return {
    demo,
    server,
    dataDir,
    close: async () => {
      await server.close();
      await demo.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One parsed server-sent event. */
export interface SseMessage {
  readonly event: string;
  readonly data: unknown;
}

/**
 * Parses a complete `text/event-stream` body.
 * @param text - the body
 * @returns the messages in order
 */
export function parseSse(text: string): SseMessage[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      return { event, data: JSON.parse(data.join('\n')) as unknown };
    });
}

/**
 * Polls `check` until it returns a value (not `undefined`), with real waits between tries.
 * @param check - the probe
 * @param what - named in the timeout error
 * @param timeoutMs - give up after this long
 */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Points a running demo at a model server (`PUT /api/settings/model`), as a player does under
 * “模型 Model”; later turns are answered by it.
 * @param fx - the fixture (or `setupWebFixture`'s handles)
 * @param baseUrl - the server's base URL including `/v1`
 * @param model - the model name to ask for
 */
export async function pointAtModelServer(fx: Pick<WebFixture, 'server'>, baseUrl: string, model = 'fake-rp'): Promise<void> {
  const saved = await fetch(`${fx.server.url}/api/settings/model`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ baseUrl, model }) });
  if (saved.status !== 200) throw new Error(`PUT /api/settings/model answered ${saved.status}: ${await saved.text()}`);
}
