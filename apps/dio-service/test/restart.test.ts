import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DioClient } from '@troupe/plugin-dio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/test-service.js';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = 'admin-token-restart';
const ALICE = 'alice-token-restart';
const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';
const children: ChildProcess[] = [];
let dataDir = '';

/** Starts `node dist/main.js` and resolves with its URL once it logs that it is listening. */
function startChild(extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(APP, 'dist', 'main.js')], {
    cwd: APP,
    env: { PATH: process.env.PATH ?? '', PORT: '0', DIO_DATA_DIR: dataDir, DIO_TOKENS: `${ALICE}:alice`, DIO_ADMIN_TOKEN: ADMIN, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`service did not start: ${err}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /dio-service listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}: ${err}`));
    });
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

const auth = `Bearer ${ALICE}`;
const where = { userId: 'alice', rpConversationId: 'conversation-8', targetPromptId: 'lia-character', userAuthorization: auth };

beforeAll(async () => {
  // The child runs the compiled app; build it (incremental, fast when up to date).
  execFileSync(process.execPath, [join(APP, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.src.json'], { cwd: APP, stdio: 'pipe' });
  dataDir = await mkdtemp(join(tmpdir(), 'dio-service-restart-'));
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('the service as a process', () => {
  it('keeps versions across a SIGKILL crash and a SIGTERM restart, and shuts down cleanly on SIGTERM', async () => {
    const first = await startChild();
    expect((await call(first.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { content: '你是莉娅，灯塔旅店的老板。', characterName: '莉娅' })).status).toBe(201);
    const client1 = new DioClient(first.url, 2_000);
    const accepted = await client1.schedule({ ...where, actorTurnRequestId: 'rp-turn-101', instruction: REQUIREMENT, language: 'zh' });
    const task = await client1.waitForTerminal(accepted.requestId, { userAuthorization: auth, intervalMs: 25 });
    expect(task).toMatchObject({ status: 'succeeded', promptChanged: true });
    const before = await client1.activePrompt(where);
    expect(before?.compiledPrompt).toContain(REQUIREMENT);

    first.child.kill('SIGKILL');
    expect((await exited(first.child)).signal).toBe('SIGKILL');

    const second = await startChild();
    const client2 = new DioClient(second.url, 2_000);
    expect(await client2.activePrompt(where)).toEqual(before);
    expect(await client2.waitForTerminal(accepted.requestId, { userAuthorization: auth, intervalMs: 25 })).toEqual(task);
    const next = await client2.schedule({ ...where, actorTurnRequestId: 'rp-turn-102', instruction: '说话时偶尔提到海浪。', language: 'zh' });
    await client2.waitForTerminal(next.requestId, { userAuthorization: auth, intervalMs: 25 });
    const v2 = await client2.activePrompt(where);
    expect(v2).toMatchObject({ versionId: 'v2', sourceVersionId: 's2' });

    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });

    const third = await startChild();
    const client3 = new DioClient(third.url, 2_000);
    expect(await client3.activePrompt(where)).toEqual(v2);
    const listed = await call(third.url, 'GET', '/v1/director/requirements?userId=alice&conversationId=conversation-8&targetPromptId=lia-character', ALICE);
    expect(listed.json.requirements.map((requirement: { text: string }) => requirement.text)).toEqual([REQUIREMENT, '说话时偶尔提到海浪。']);
    third.child.kill('SIGKILL');
    await exited(third.child);
  }, 60_000);

  it('exits within 5 s of SIGTERM while a compile waits out a Retry-After', async () => {
    let compileSeen: () => void = () => {};
    const compiling = new Promise<void>((resolve) => {
      compileSeen = resolve;
    });
    // The compiling model server asks every call to come back in 25 s (within the client's cap).
    const model = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '25' }).end('{"error":{"message":"slow down"}}');
        compileSeen();
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = model.address() as AddressInfo;
      const running = await startChild({ TROUPE_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`, TROUPE_MODEL: 'slow' });
      await call(running.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { content: '你是莉娅，灯塔旅店的老板。', characterName: '莉娅' });
      await new DioClient(running.url, 2_000).schedule({ ...where, rpConversationId: 'conversation-9', actorTurnRequestId: 'rp-turn-201', instruction: REQUIREMENT, language: 'zh' });
      await compiling;
      running.child.kill('SIGTERM');
      const outcome = await Promise.race([exited(running.child), new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
      expect(outcome).toEqual({ code: 0, signal: null });
    } finally {
      model.closeAllConnections();
      await new Promise<void>((resolve) => model.close(() => resolve()));
    }
  }, 60_000);

  it('refuses to start with a bad environment, naming the variable', async () => {
    const child = spawn(process.execPath, [join(APP, 'dist', 'main.js')], {
      cwd: APP,
      env: { PATH: process.env.PATH ?? '', PORT: 'not-a-port', DIO_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    expect((await exited(child)).code).toBe(1);
    expect(err).toContain('PORT');
  }, 20_000);
});
