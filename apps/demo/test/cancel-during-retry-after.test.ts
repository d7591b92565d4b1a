import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHarness } from '@troupe/kernel';
import { openAICompatibleModel } from '@troupe/model-openai-compatible';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDataDir } from './helpers.js';

// Issue 13, item 3: a model server that says "Retry-After: 600" while the client is allowed to
// wait that long, and the player cancels: the turn ends with the abort reason and the NEXT turn of
// that session starts at once — no lingering wait, no lingering turn lock (the session's turns are
// serialised across processes through the data folder). Were either left behind, the second turn
// would sit behind the 600 s wait and this test would time out.

let dir = '';
let cleanup: () => Promise<void> = async () => {};
let server: Server | undefined;
beforeEach(async () => ({ dir, cleanup } = await tempDataDir()));
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  await cleanup();
});

/** First call: 429 with Retry-After 600; every later call: a normal completion. */
async function rateLimitedOnce(): Promise<{ baseURL: string; requests: () => number; firstAnswered: Promise<void> }> {
  let requests = 0;
  let answered: () => void = () => {};
  const firstAnswered = new Promise<void>((resolve) => {
    answered = resolve;
  });
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      if (requests === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '600' });
        res.end('{"error":{"message":"come back in ten minutes"}}');
        answered();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '灯塔还亮着。' }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => requests, firstAnswered };
}

describe('cancelling a turn that waits for Retry-After: 600', () => {
  it('the turn rejects with the abort reason and the next turn of the session starts at once', async () => {
    const limited = await rateLimitedOnce();
    // A cap above 600 s, so the client really waits (the default cap, 30 s, would fail at once).
    const model = openAICompatibleModel({ baseURL: limited.baseURL, model: 'm', maxRetries: 2, maxRetryAfterMs: 900_000 }, {});
    const harness = await createHarness({ model, sessionLog: fsStorage({ root: dir }).sessions });
    const controller = new AbortController();
    const reason = new Error('the player pressed stop');
    const first = harness.runTurn({ sessionId: 'lia', text: '还亮着吗？' }, { signal: controller.signal });
    const outcome = first.then(
      () => 'committed',
      (error: unknown) => error,
    );
    await limited.firstAnswered;
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    const second = await harness.runTurn({ sessionId: 'lia', text: '灯塔呢？' });
    expect(second.reply).toBe('灯塔还亮着。');
    expect(limited.requests()).toBe(2);
    // Only the second turn committed; the cancelled one left nothing behind.
    const committed = (await fsStorage({ root: dir }).sessions.read('lia')).filter((event) => event.type === 'kernel/turn-committed');
    expect(committed.map((event) => (event.data as { input: string }).input)).toEqual(['灯塔呢？']);
    await harness.close();
  }, 30_000);
});
