import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayServer, type ThrowawayServer } from '@troupe/storage-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeDemo, type Demo } from '../src/compose.js';
import { type RunningWebServer, startWebServer } from '../src/server/index.js';
import { apiClient, freshId, playTurn } from './support/api-client.js';
import { openSse } from './support/sse-reader.js';

// Skipped only when the developer opted out of PostgreSQL tests (the storage-postgres suite says why).
const skip = process.env.TROUPE_SKIP_PG === '1';
let database: ThrowawayServer | undefined;
const servers: { demo: Demo; web: RunningWebServer; dataDir: string }[] = [];

beforeAll(async () => {
  if (skip) return;
  database = startThrowawayServer();
  for (let index = 0; index < 2; index++) {
    const dataDir = await mkdtemp(join(tmpdir(), `troupe-pg-demo-${index}-`));
    const demo = await composeDemo({ dataDir, env: { TROUPE_DATABASE_URL: database.url } });
    servers.push({ demo, web: await startWebServer(demo, { port: 0 }), dataDir });
  }
});
afterAll(async () => {
  for (const { demo, web, dataDir } of servers.splice(0)) {
    await web.close();
    await demo.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  database?.stop();
});

describe.skipIf(skip)('two demo servers on one database (TROUPE_DATABASE_URL)', () => {
  it("a turn on server A is announced to server B's open chat, which then shows it", async () => {
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const session = freshId('shared');
    const live = await openSse(`${b.web.url}/api/sessions/${session}/live`);
    try {
      await live.next('ready');
      const messages = await playTurn(a.web.url, session, '你好，莉娅。');
      const reply = (messages.at(-1)?.data as { reply: string }).reply;
      const announced = await live.next('events');
      expect(announced.data).toMatchObject({ lastId: expect.stringMatching(/^e\d+$/) });
      const onB = await apiClient(() => b.web.url)('GET', `/api/sessions/${session}/messages`);
      expect((onB.body as { messages: { input: string; reply: string }[] }).messages).toEqual([expect.objectContaining({ input: '你好，莉娅。', reply })]);
    } finally {
      live.close();
    }
    // Workspaces and sessions went to the database, not to either data folder.
    for (const { dataDir } of servers) expect(await readdir(dataDir)).not.toContain('sessions');
  });

  it('says unsupported on filesystem storage', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-fs-demo-'));
    const demo = await composeDemo({ dataDir, env: {} });
    const web = await startWebServer(demo, { port: 0 });
    try {
      const live = await openSse(`${web.url}/api/sessions/s1/live`);
      expect((await live.next('unsupported')).data).toMatchObject({ reason: expect.stringContaining('TROUPE_DATABASE_URL') });
      live.close();
    } finally {
      await web.close();
      await demo.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
