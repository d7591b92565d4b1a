import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDataDir } from './helpers.js';
import { type Answer, apiClient } from './support/api-client.js';
import { buildDemo, type DemoServerProcess, startDemoServer } from './support/demo-server.js';
import { startSlowContinuityModel, type SlowContinuityModel } from './support/slow-continuity-model.js';

// A committed story turn's continuity write-back must land exactly once, whatever happens to the
// client or the server after the commit: the stream is closed, the server is stopped or killed.

const STRESS = process.env.STRESS === '1';
const KILLS = STRESS ? 40 : 3;
const STORY = 'harbour';

let model: SlowContinuityModel;
let dir = '';
let cleanup: () => Promise<void> = async () => {};
const servers: DemoServerProcess[] = [];

beforeAll(async () => {
  buildDemo();
  model = await startSlowContinuityModel(1_500);
}, 180_000);
afterAll(() => model?.close());
beforeEach(async () => ({ dir, cleanup } = await tempDataDir()));
afterEach(async () => {
  for (const server of servers.splice(0)) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await cleanup();
});

async function start(): Promise<DemoServerProcess> {
  const server = await startDemoServer(dir, { TROUPE_MODEL_BASE_URL: model.baseUrl, TROUPE_MODEL: 'slow' });
  servers.push(server);
  return server;
}

/** One API call to the server at `url`. */
function call(url: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return apiClient(() => url)(method, path, body);
}

async function storySession(url: string, sessionId: string): Promise<void> {
  if ((await call(url, 'GET', `/api/stories/${STORY}`)).status === 404) expect((await call(url, 'POST', '/api/stories', { id: STORY, name: 'Harbour' })).status).toBe(201);
  expect((await call(url, 'PUT', `/api/sessions/${sessionId}/story`, { storyId: STORY })).status).toBe(200);
}

/**
 * Plays a turn and reads its stream until `stop` says so, then closes the connection.
 * @returns whether the stream showed `kernel/turn-committed`
 */
async function turnUntil(url: string, sessionId: string, text: string, stop: (event: string, type: string | undefined) => boolean): Promise<boolean> {
  const controller = new AbortController();
  let committed = false;
  try {
    const response = await fetch(`${url}/api/sessions/${sessionId}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return committed;
      buffered += decoder.decode(chunk.value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const type = event === 'progress' && data ? (JSON.parse(data) as { type?: string }).type : undefined;
        if (type === 'kernel/turn-committed') committed = true;
        if (stop(event, type)) {
          controller.abort();
          return committed;
        }
        end = buffered.indexOf('\n\n');
      }
    }
  } catch {
    return committed; // the server went away mid-stream
  }
}

/** Every committed turn of the session, and for each how often it was settled into the workspace. */
async function settlements(url: string, sessionId: string): Promise<{ turnId: string; events: number; blocks: number }[]> {
  const { body } = await call(url, 'GET', `/api/sessions/${sessionId}/events`);
  const events = body.events as { type: string; turnId: string; key?: string }[];
  const history = ((await call(url, 'GET', `/api/stories/${STORY}`)).body.files['history.md'] as string) ?? '';
  const turnIds = [...new Set(events.filter((event) => event.type === 'kernel/turn-committed').map((event) => event.turnId))];
  return turnIds.map((turnId) => ({
    turnId,
    events: events.filter((event) => event.type === 'agent-rp/story-settled' && event.key === `story:${turnId}`).length,
    blocks: history.split(`<!-- troupe:settle story:${turnId} -->`).length - 1,
  }));
}

/** Waits until every committed turn is settled, then checks each one was settled exactly once. */
async function expectEachSettledOnce(url: string, sessionId: string, atLeast: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  let rows = await settlements(url, sessionId);
  while (Date.now() < deadline && !(rows.length >= atLeast && rows.every((row) => row.events > 0))) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    rows = await settlements(url, sessionId);
  }
  expect(rows.length).toBeGreaterThanOrEqual(atLeast);
  expect(rows).toEqual(rows.map((row) => ({ turnId: row.turnId, events: 1, blocks: 1 })));
  return rows.length;
}

describe('a committed story turn is settled exactly once', () => {
  it('when the browser closes the stream right after kernel/turn-committed (and after a restart)', async () => {
    const server = await start();
    await storySession(server.url, 's1');
    expect(await turnUntil(server.url, 's1', 'Light the lamp.', (_event, type) => type === 'kernel/turn-committed')).toBe(true);
    await expectEachSettledOnce(server.url, 's1', 1);
    server.child.kill('SIGTERM');
    await server.exited;
    const again = await start();
    await expectEachSettledOnce(again.url, 's1', 1);
  }, 120_000);

  it('when the server gets SIGTERM right after kernel/turn-committed', async () => {
    const server = await start();
    await storySession(server.url, 's1');
    expect(await turnUntil(server.url, 's1', 'Light the lamp.', (_event, type) => type === 'kernel/turn-committed' && server.child.kill('SIGTERM'))).toBe(true);
    expect((await server.exited).code).toBe(0);
    const again = await start();
    await expectEachSettledOnce(again.url, 's1', 1);
  }, 120_000);

  it(`across ${KILLS} SIGKILLs during story turns: every committed turn settled exactly once, 0 acknowledged saves lost`, async () => {
    const acknowledged: string[] = [];
    let url = (await start()).url;
    await storySession(url, 's1');
    for (let kill = 0; kill < KILLS; kill++) {
      const server = servers.at(-1) as DemoServerProcess;
      // An acknowledged save: a new outline line, based on the revision just read.
      const line = `Save ${kill}.`;
      for (let attempt = 0; attempt < 5; attempt++) {
        const current = (await call(url, 'GET', `/api/stories/${STORY}`)).body;
        const saved = await call(url, 'PUT', `/api/stories/${STORY}/files`, { baseRevision: current.revision, files: { 'outline.md': `${current.files['outline.md'] ?? ''}\n${line}` } });
        if (saved.status === 200) {
          acknowledged.push(line);
          break;
        }
        expect(saved.status).toBe(409); // a settlement landed in between: read again
      }
      // Kill at a random point of the turn: before, at or after its commit.
      const killAt = Math.floor(Math.random() * 3);
      let seen = 0;
      void turnUntil(url, 's1', `Turn ${kill}.`, (event, type) => {
        seen += 1;
        if (killAt === 0 || (killAt === 1 && type === 'kernel/turn-committed') || (killAt === 2 && event === 'result') || seen > 200) {
          server.child.kill('SIGKILL');
          return true;
        }
        return false;
      });
      await server.exited;
      url = (await start()).url;
    }
    // One turn played to the end after the last restart: the session's next turn finishes too.
    expect(await turnUntil(url, 's1', 'The last turn.', (event) => event === 'result')).toBe(true);
    const turns = await expectEachSettledOnce(url, 's1', 1);
    const outline = (await call(url, 'GET', `/api/stories/${STORY}`)).body.files['outline.md'] as string;
    const lost = acknowledged.filter((line) => !outline.includes(line));
    console.log(`${KILLS} SIGKILLs: ${turns} committed story turns, each settled exactly once; ${acknowledged.length} acknowledged saves, ${lost.length} lost`);
    expect(lost).toEqual([]);
  }, STRESS ? 1_800_000 : 180_000);
});
