import { createHash } from 'node:crypto';
import { createHarness, type Harness, type SessionEvent, type TurnResult } from '@troupe/kernel';
import { ManualClock, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioClientToken, DioClient, dioPlugin } from '../src/index.js';
import { type LoopbackServer, type SeenRequest, startLoopbackServer } from './helpers/loopback-server.js';
import { probePlugin } from './helpers/probe-plugin.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { settleInVirtualTime, trackedFetch } from './helpers/virtual-time.js';

const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';
const COMPILED = `你是莉娅。\n\n## 长期要求 / Lasting requirements\n- ${REQUIREMENT}`;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const scheduleCall = { text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] };

/** A tiny contract-faithful DIO server: tasks stay `processing` until the test completes them. */
async function contractServer() {
  const tasks = new Map<string, string>();
  let active: string | undefined;
  const server = await startLoopbackServer((request: SeenRequest) => {
    const url = new URL(request.url, 'http://x');
    if (request.method === 'POST' && url.pathname === '/v1/chat') {
      const body = JSON.parse(request.body);
      tasks.set(body.requestId, 'processing');
      return {
        status: 202,
        json: { ok: true, accepted: true, conversationId: body.conversationId, targetPromptId: body.targetPromptId, taskMessageId: body.messageId, requestId: body.requestId },
      };
    }
    if (url.pathname.startsWith('/v1/director/tasks/by-request/')) {
      const requestId = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      const status = tasks.get(requestId);
      if (!status) return { status: 404, json: {} };
      return { status: 200, json: { requestId, status, promptChanged: status === 'succeeded', ...(status === 'succeeded' ? { sourceVersionId: 's1', compiledPromptSha256: sha(COMPILED) } : {}) } };
    }
    if (url.pathname === '/v1/director/active-prompt') {
      if (!active) return { status: 404, json: {} };
      return { status: 200, json: { versionId: 'v1', sourceVersionId: 's1', changeset: { added: [{ id: 'r1', text: REQUIREMENT }], removed: [] }, compiledPrompt: active, compiledPromptSha256: sha(active) } };
    }
    return { status: 404, json: {} };
  });
  return {
    server,
    complete(requestId: string) {
      tasks.set(requestId, 'succeeded');
      active = COMPILED;
    },
  };
}

let server: LoopbackServer | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = undefined;
  server = undefined;
});

const dioTypes = (events: readonly SessionEvent[]) => events.filter((event) => event.type.startsWith('dio/')).map((event) => event.type);

describe('dioPlugin over two turns', () => {
  it('turn 1 schedules the raw input without waiting; the task succeeds in the background; turn 2 gets the compiled prompt', async () => {
    const dio = await contractServer();
    server = dio.server;
    const seen: Array<string | undefined> = [];
    const sessionLog = new MemorySessionLog();
    const model = new ScriptedChatModel({ byStage: { director: [scheduleCall, 'none', 'none'] } });
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia-character', pollIntervalMs: 20 }), probePlugin(seen)],
      model,
      sessionLog,
      scenario: { preActorDirector: true },
    });
    const turn1 = await harness.runTurn({ sessionId: 'conversation-8', turnId: 'rp-turn-101', text: REQUIREMENT, userId: 'user-42', authorization: 'Bearer tok-42' });
    expect(dioTypes(turn1.events)).toEqual(['dio/active-prompt-none', 'dio/scheduled']);
    const scheduled = turn1.events.find((event) => event.type === 'dio/scheduled');
    expect(scheduled?.data).toMatchObject({ requestId: 'rp-turn-101:dio', dioConversationId: 'dio_conversation-8', taskMessageId: 'rp-turn-101:dio:assistant' });
    // The reply did not wait: the task is still processing in the background.
    expect(harness.backgroundTasks).toBe(1);
    const post = server.requests.find((request) => request.method === 'POST');
    expect(JSON.parse(post?.body ?? '{}').message).toBe(REQUIREMENT);
    expect(post?.headers.authorization).toBe('Bearer tok-42');
    // The control model got the acceptance back as the tool result.
    const toolMessage = model.callsFor('director')[1]?.messages.find((message) => message.role === 'tool');
    expect(JSON.parse(toolMessage?.content ?? '{}')).toMatchObject({ ok: true, result: { accepted: true, appliesFrom: 'next_turn' } });

    dio.complete('rp-turn-101:dio');
    while (harness.backgroundTasks > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const terminal = (await sessionLog.read('conversation-8')).filter((event) => event.type === 'dio/task-terminal');
    expect(terminal).toHaveLength(1);
    expect(terminal[0]?.data).toMatchObject({ requestId: 'rp-turn-101:dio', status: 'succeeded', promptChanged: true, sourceVersionId: 's1' });

    const turn2 = await harness.runTurn({ sessionId: 'conversation-8', text: '今天天气怎么样？', userId: 'user-42', authorization: 'Bearer tok-42' });
    expect(dioTypes(turn2.events)).toEqual(['dio/active-prompt-applied']);
    expect(turn2.events.find((event) => event.type === 'dio/active-prompt-applied')?.data).toMatchObject({ versionId: 'v1', compiledPromptSha256: sha(COMPILED) });
    expect(seen).toEqual([undefined, COMPILED]);
    expect(turn2.prepared.history[0]).toEqual({ role: 'system', content: COMPILED });
    expect(harness.resolve(DioClientToken)).toBeInstanceOf(DioClient);
  });

  it('does not run the director when the scenario does not enable it', async () => {
    const dio = await contractServer();
    server = dio.server;
    const model = new ScriptedChatModel({ byStage: { director: [scheduleCall] } });
    harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })], model, sessionLog: new MemorySessionLog() });
    await harness.runTurn({ sessionId: 's1', text: REQUIREMENT, userId: 'u1' });
    expect(model.callsFor('director')).toHaveLength(0);
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('refuses a second call in the same turn and model-supplied arguments', async () => {
    const dio = await contractServer();
    server = dio.server;
    const twice = { text: '', toolCalls: [{ id: 'a', name: 'schedule_dio', arguments: {} }, { id: 'b', name: 'schedule_dio', arguments: {} }] };
    const withText = { text: '', toolCalls: [{ id: 'c', name: 'schedule_dio', arguments: { instruction: 'model-written text' } }] };
    const model = new ScriptedChatModel({ byStage: { director: [twice, 'none', withText, 'none'] } });
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia', pollIntervalMs: 10 })],
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { preActorDirector: true },
    });
    const first = await harness.runTurn({ sessionId: 's1', turnId: 'turn-a', text: REQUIREMENT, userId: 'u1' });
    const calls = first.events.filter((event) => event.type === 'kernel/tool-called').map((event) => event.data as { ok: boolean; error?: { code: string } });
    expect(calls.map((call) => call.ok)).toEqual([true, false]);
    expect(calls[1]?.error?.code).toBe('TOOL_DUPLICATE_CALL');
    const second = await harness.runTurn({ sessionId: 's1', turnId: 'turn-b', text: 'another', userId: 'u1' });
    const rejected = second.events.filter((event) => event.type === 'kernel/tool-called').map((event) => event.data as { error?: { code: string } });
    expect(rejected[0]?.error?.code).toBe('TOOL_INVALID_ARGUMENTS');
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('a failed submission is one dio/schedule-failed event and a tool error; the turn still replies', async () => {
    server = await startLoopbackServer((request) => (request.method === 'POST' ? { status: 400, json: { ok: false } } : { status: 404, json: {} }));
    const model = new ScriptedChatModel({ byStage: { director: [scheduleCall, 'none'], actor: ['ok'] } });
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })],
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { preActorDirector: true },
    });
    const result = await harness.runTurn({ sessionId: 's1', turnId: 'turn-x', text: REQUIREMENT, userId: 'u1' });
    expect(result.reply).toBe('ok');
    expect(dioTypes(result.events)).toEqual(['dio/active-prompt-none', 'dio/schedule-failed']);
    // The refusal names the requirement, as every other event of it does (the DIO view ties it to its turn).
    expect(result.events.find((event) => event.type === 'dio/schedule-failed')?.data).toMatchObject({
      code: 'DIO_HTTP_PERMANENT',
      status: 400,
      requestId: 'turn-x:dio',
      dioConversationId: 'dio_s1',
      targetPromptId: 'lia',
    });
    expect(harness.backgroundTasks).toBe(0);
  });

  it('skips the lookup (one dio/active-prompt-skipped event) when the turn has no user or no target prompt', async () => {
    server = await startLoopbackServer(() => ({ status: 404, json: {} }));
    harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url })], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() });
    const noUser = await harness.runTurn({ sessionId: 's1', text: 'hi' });
    expect(noUser.events.find((event) => event.type.startsWith('dio/'))?.data).toEqual({ reason: 'missing-user' });
    const noTarget = await harness.runTurn({ sessionId: 's1', text: 'hi', userId: 'u1' });
    expect(noTarget.events.find((event) => event.type.startsWith('dio/'))?.data).toEqual({ reason: 'missing-target-prompt' });
    const viaAttributes = await harness.runTurn({ sessionId: 's1', text: 'hi', userId: 'u1', attributes: { targetPromptId: 'lia', rpConversationId: 'rp-9' } });
    expect(dioTypes(viaAttributes.events)).toEqual(['dio/active-prompt-none']);
    expect(new URL(server.requests[0]?.url ?? '', 'http://x').searchParams.get('conversationId')).toBe('rp-9');
  });

  it.each([
    ['400', { status: 400, json: {} }, 'DIO_HTTP_PERMANENT'],
    ['500', { status: 500, json: {} }, 'DIO_HTTP_TRANSIENT'],
    ['429', { status: 429, json: {} }, 'DIO_HTTP_TRANSIENT'],
    ['reset', { reset: true as const }, 'DIO_NETWORK'],
    ['timeout (hang)', { hang: true as const }, 'DIO_TIMEOUT'],
    ['malformed JSON', { status: 200, raw: 'not json' }, 'DIO_INVALID_RESPONSE'],
    ['wrong shape', { status: 200, json: { versionId: 'v1' } }, 'DIO_INVALID_RESPONSE'],
  ])('lookup %s → exactly one dio/active-prompt-degraded event (%s), one plugin log line, and the turn goes on', async (_name, reply, code) => {
    server = await startLoopbackServer(() => reply);
    // The client's timeouts and retry pauses run in virtual time: the class never depends on load.
    const clock = new ManualClock();
    const tracked = trackedFetch();
    const logger = recordingLogger();
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia', lookupTimeoutMs: 500, requestTimeoutMs: 200, clock, fetch: tracked.fetch })],
      model: new ScriptedChatModel({ byStage: { actor: ['still here'] } }),
      sessionLog: new MemorySessionLog(),
      logger,
    });
    const outcome = await settleInVirtualTime(clock, server, tracked, harness.runTurn({ sessionId: 's1', text: 'hi', userId: 'u1' }));
    const result = (outcome as { value: TurnResult }).value;
    expect(result.reply).toBe('still here');
    expect(dioTypes(result.events)).toEqual(['dio/active-prompt-degraded']);
    expect(result.events.find((event) => event.type === 'dio/active-prompt-degraded')?.data).toMatchObject({ code });
    expect(result.events.map((event) => event.type)).not.toContain('kernel/hook-degraded');
    // Exactly one log line for the failure (the client's), none from the handler on top.
    const pluginLines = logger.lines.filter((line) => line.fields.plugin === '@troupe/plugin-dio');
    expect(pluginLines.map((line) => [line.level, line.message])).toEqual([['warn', 'dio activePrompt failed']]);
    expect(pluginLines[0]?.fields).toMatchObject({ error: { code } });
  });

  it('schedule_dio without a configured targetPromptId: a tool error that says how to supply one; a turn attribute makes it work', async () => {
    const dio = await contractServer();
    server = dio.server;
    const model = new ScriptedChatModel({ byStage: { director: [scheduleCall, 'none', scheduleCall, 'none'] } });
    harness = await createHarness({
      plugins: [dioPlugin({ baseUrl: server.url, pollIntervalMs: 20 })],
      model,
      sessionLog: new MemorySessionLog(),
      scenario: { preActorDirector: true },
    });
    const missing = await harness.runTurn({ sessionId: 's1', turnId: 'turn-a', text: REQUIREMENT, userId: 'u1' });
    const call = missing.events.find((event) => event.type === 'kernel/tool-called')?.data as { ok: boolean; error?: { code: string; message: string } };
    expect(call.ok).toBe(false);
    expect(call.error?.message).toContain('missing-target-prompt');
    expect(call.error?.message).toContain('`targetPromptId` in the dioPlugin config');
    expect(call.error?.message).toContain('`attributes.targetPromptId`');
    expect(missing.events.find((event) => event.type === 'dio/schedule-failed')?.data).toMatchObject({ code: 'DIO_INVALID_REQUEST' });
    expect(server.requests).toHaveLength(0);
    const viaAttribute = await harness.runTurn({ sessionId: 's1', turnId: 'turn-b', text: REQUIREMENT, userId: 'u1', attributes: { targetPromptId: 'lia' } });
    expect(dioTypes(viaAttribute.events)).toEqual(['dio/active-prompt-none', 'dio/scheduled']);
    expect(JSON.parse(server.requests.find((request) => request.method === 'POST')?.body ?? '{}')).toMatchObject({ targetPromptId: 'lia', message: REQUIREMENT });
  });

  it('rejects invalid config at boot', async () => {
    await expect(
      createHarness({ plugins: [dioPlugin({ baseUrl: 'ftp://example' })], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() }),
    ).rejects.toMatchObject({ code: 'KERNEL_PLUGIN_CONFIG_INVALID' });
  });
});
