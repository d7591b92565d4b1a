import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDataDir } from './helpers.js';
import { buildDemo, startDemoServer } from './support/demo-server.js';

const children: ChildProcess[] = [];
let dir = '';
let cleanup: () => Promise<void> = async () => {};
let limiter: { server: Server; baseUrl: string; requests: number; firstRequest: Promise<void> } | undefined;

/** A model server that answers every call with 429 and `Retry-After: 25` (within the client's cap). */
async function startRateLimitedModel(): Promise<NonNullable<typeof limiter>> {
  let seen: () => void = () => {};
  const firstRequest = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests += 1;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '25' });
      res.end('{"error":{"message":"slow down"}}');
      seen();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, { server, baseUrl: `http://127.0.0.1:${port}/v1`, firstRequest });
}

// The child runs the compiled CLI; build it (incremental, fast when up to date).
beforeAll(() => buildDemo(), 180_000);
beforeEach(async () => {
  ({ dir, cleanup } = await tempDataDir());
  limiter = await startRateLimitedModel();
});
afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await new Promise<void>((resolve) => {
    limiter?.server.closeAllConnections();
    limiter?.server.close(() => resolve());
  });
  await cleanup();
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('serve shuts down while a model call waits for Retry-After', () => {
  it('exits cleanly within 5 s of SIGTERM', async () => {
    const server = await startDemoServer(dir, { TROUPE_MODEL_BASE_URL: limiter!.baseUrl, TROUPE_MODEL: 'slow-model' });
    children.push(server.child);
    const { child, url } = server;
    // A turn whose first model call is told to come back in 25 s.
    const turn = fetch(`${url}/api/sessions/s1/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hello' }) })
      .then((response) => response.text())
      .catch(() => '');
    await limiter!.firstRequest;
    child.kill('SIGTERM');
    const outcome = await Promise.race([server.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
    expect(outcome, server.stderr()).toEqual({ code: 0, signal: null });
    await turn;
    expect(limiter!.requests).toBe(1);
  }, 60_000);
});
