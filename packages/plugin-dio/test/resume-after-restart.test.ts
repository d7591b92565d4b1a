import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHarness, type Harness, type SessionEvent } from '@troupe/kernel';
import { ScriptedChatModel } from '@troupe/kernel/testing';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DioSessionRequirementsToken, dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';

// A process killed (SIGKILL) or stopped while a requirement's background work runs must not lose
// it: the next process resumes it from the session log — at start-up when the app asks, at the
// latest on the session's next turn — exactly once, and it ends in its usual event.

const CHILD = fileURLToPath(new URL('./fixtures/dio-turn-child.mjs', import.meta.url));
const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';

/** A DIO service whose submissions fail while `down` and whose tasks stay processing until `done`. */
async function dioService() {
  const state = { down: false, done: false, accepted: new Map<string, string>() };
  const server = await startLoopbackServer((request) => {
    const url = new URL(request.url, 'http://x');
    if (request.method === 'POST' && url.pathname === '/v1/chat') {
      if (state.down) return { status: 500, json: {} };
      const body = JSON.parse(request.body);
      state.accepted.set(body.requestId, body.message);
      return { status: 202, json: { ok: true, accepted: true, conversationId: body.conversationId, targetPromptId: body.targetPromptId, taskMessageId: body.messageId, requestId: body.requestId } };
    }
    if (url.pathname.startsWith('/v1/director/tasks/by-request/')) {
      const requestId = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      if (!state.accepted.has(requestId)) return { status: 404, json: {} };
      return { status: 200, json: { requestId, status: state.done ? 'succeeded' : 'processing', promptChanged: state.done } };
    }
    return { status: 404, json: {} };
  });
  return { server, state };
}

/** Runs the child's turn, waits until `ready()` holds, then SIGKILLs it. */
async function turnThenKill(root: string, url: string, ready: () => boolean): Promise<string[]> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(CHILD, [root, url, 's1', 'turn-1'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const committed = await new Promise<string[]>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { committed: string[] }).committed));
    child.once('exit', (code) => reject(new Error(`the child exited early (${String(code)})`)));
  });
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  child.kill('SIGKILL');
  await exited;
  return committed;
}

const dioEvents = (events: readonly SessionEvent[]) => events.filter((event) => event.type.startsWith('dio/'));
const polls = (server: LoopbackServer) => server.requests.filter((request) => request.url.includes('/by-request/')).length;

let root: string | undefined;
let server: LoopbackServer | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
  server = undefined;
  harness = undefined;
});

async function restart(storageRoot: string, url: string, actor: string) {
  const storage = fsStorage({ root: storageRoot });
  harness = await createHarness({
    plugins: [dioPlugin({ baseUrl: url, targetPromptId: 'lia', pollIntervalMs: 20 })],
    model: new ScriptedChatModel({ byStage: { actor: [actor] } }),
    sessionLog: storage.sessions,
  });
  return { storage, harness };
}

async function drained(h: Harness): Promise<void> {
  while (h.backgroundTasks > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('DIO background work after a restart', () => {
  it('a task still processing when the process is SIGKILLed is polled again at start-up, exactly once, and ends in dio/task-terminal', { timeout: 30_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-dio-restart-'));
    const dio = await dioService();
    server = dio.server;
    const committed = await turnThenKill(root, server.url, () => polls(dio.server) >= 2);
    expect(committed).toContain('dio/scheduled');
    const { storage, harness: h } = await restart(root, server.url, 'ok');
    const pollsBefore = polls(dio.server);

    const requirements = h.resolve(DioSessionRequirementsToken);
    expect(await requirements.resume({ sessionId: 's1', userId: 'u1', authorization: 'Bearer tok-1' })).toEqual([{ requestId: 'turn-1:dio', kind: 'wait' }]);
    // Asked again (or by the next turn): nothing more starts.
    expect(await requirements.resume({ sessionId: 's1', userId: 'u1', authorization: 'Bearer tok-1' })).toEqual([]);
    while (polls(dio.server) === pollsBefore) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(dio.server.requests.at(-1)?.headers.authorization).toBe('Bearer tok-1');
    dio.state.done = true;
    await drained(h);
    await h.runTurn({ sessionId: 's1', text: '今晚会有风暴吗？', userId: 'u1', authorization: 'Bearer tok-1' });
    await drained(h);

    const terminal = dioEvents(await storage.sessions.read('s1')).filter((event) => event.type === 'dio/task-terminal');
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toMatchObject({ turnId: 'turn-1', step: 0, data: { requestId: 'turn-1:dio', status: 'succeeded', resumed: true } });
  });

  it('without a start-up call, the session’s next turn resumes the wait', { timeout: 30_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-dio-restart-'));
    const dio = await dioService();
    server = dio.server;
    await turnThenKill(root, server.url, () => polls(dio.server) >= 1);
    dio.state.done = true;
    const { storage, harness: h } = await restart(root, server.url, 'ok');
    await h.runTurn({ sessionId: 's1', text: '今晚会有风暴吗？', userId: 'u1', authorization: 'Bearer tok-1' });
    await drained(h);
    const types = dioEvents(await storage.sessions.read('s1')).map((event) => event.type);
    expect(types.filter((type) => type === 'dio/task-terminal')).toHaveLength(1);
  });

  it('a submission still pending (the service answered 500) is sent again with the same request id and text, then waited for', { timeout: 30_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-dio-restart-'));
    const dio = await dioService();
    server = dio.server;
    dio.state.down = true;
    const posts = () => dio.server.requests.filter((request) => request.method === 'POST').length;
    const committed = await turnThenKill(root, server.url, () => posts() >= 3);
    expect(committed).toContain('dio/schedule-pending');
    dio.state.down = false;
    dio.state.done = true;
    const { storage, harness: h } = await restart(root, server.url, 'ok');
    expect(await h.resolve(DioSessionRequirementsToken).resume({ sessionId: 's1', userId: 'u1', authorization: 'Bearer tok-1' })).toEqual([{ requestId: 'turn-1:dio', kind: 'submit' }]);
    await drained(h);

    expect([...dio.state.accepted]).toEqual([['turn-1:dio', REQUIREMENT]]);
    const events = dioEvents(await storage.sessions.read('s1'));
    expect(events.map((event) => event.type)).toEqual(['dio/active-prompt-none', 'dio/schedule-pending', 'dio/scheduled', 'dio/task-terminal']);
    expect(events.slice(2).every((event) => event.turnId === 'turn-1' && (event.data as { resumed?: boolean }).resumed === true)).toBe(true);
  });
});
