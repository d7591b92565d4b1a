import { createHash } from 'node:crypto';
import { createHarness, type Harness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';
import { probePlugin } from './helpers/probe-plugin.js';

// "The turn that states a requirement never sees its own change" holds for every step of that
// turn: a regeneration plays with the prompt that was active before the turn, not the new one.

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const scheduleCall = { text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] };
const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';

/** A service that compiles at once: every accepted requirement makes a new active version. */
async function instantService(initial?: string) {
  const versions: string[] = initial ? [initial] : [];
  const seen = new Set<string>();
  const server = await startLoopbackServer((request) => {
    const url = new URL(request.url, 'http://x');
    if (request.method === 'POST' && url.pathname === '/v1/chat') {
      const body = JSON.parse(request.body);
      if (!seen.has(body.requestId)) versions.push(`${versions.at(-1) ?? '你是莉娅。'}\n- ${body.message}`);
      seen.add(body.requestId);
      return { status: 202, json: { ok: true, accepted: true, conversationId: body.conversationId, targetPromptId: body.targetPromptId, taskMessageId: body.messageId, requestId: body.requestId } };
    }
    if (url.pathname.startsWith('/v1/director/tasks/by-request/')) {
      return { status: 200, json: { requestId: decodeURIComponent(url.pathname.split('/').pop() ?? ''), status: 'succeeded', promptChanged: true } };
    }
    if (url.pathname === '/v1/director/active-prompt') {
      const text = versions.at(-1);
      if (!text) return { status: 404, json: {} };
      return { status: 200, json: { versionId: `v${versions.length}`, sourceVersionId: 's', changeset: { added: [], removed: [] }, compiledPrompt: text, compiledPromptSha256: sha(text) } };
    }
    return { status: 404, json: {} };
  });
  return { server, versions };
}

let server: LoopbackServer | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  await server?.close();
  harness = undefined;
  server = undefined;
});

async function boot(url: string, seen: Array<string | undefined>) {
  harness = await createHarness({
    plugins: [dioPlugin({ baseUrl: url, targetPromptId: 'lia', pollIntervalMs: 10 }), probePlugin(seen)],
    model: new ScriptedChatModel({ byStage: { director: [scheduleCall, 'none', scheduleCall, 'none', scheduleCall, 'none'] } }),
    sessionLog: new MemorySessionLog(),
    scenario: { preActorDirector: true },
  });
  return harness;
}

const input = { sessionId: 's1', turnId: 'turn-1', text: REQUIREMENT, userId: 'u1' };

describe('regenerating the turn that stated a requirement', () => {
  it('no compiled prompt before the turn: every step plays without one', async () => {
    const dio = await instantService();
    server = dio.server;
    const seen: Array<string | undefined> = [];
    const h = await boot(server.url, seen);
    await h.runTurn(input);
    expect(dio.versions).toHaveLength(1);
    const again = await h.runTurn({ ...input, step: 1 });
    const again2 = await h.runTurn({ ...input, step: 2 });
    expect(seen).toEqual([undefined, undefined, undefined]);
    expect(again.events.find((event) => event.type === 'dio/active-prompt-none')?.data).toMatchObject({ reason: 'before-own-requirement' });
    expect(again2.events.map((event) => event.type)).not.toContain('dio/active-prompt-applied');
    // The next turn sees the requirement.
    await h.runTurn({ sessionId: 's1', text: '今晚会有风暴吗？', userId: 'u1' });
    expect(seen.at(-1)).toBe(dio.versions.at(-1));
  });

  it('an earlier compiled prompt: a regeneration plays that one, not the new one', async () => {
    const dio = await instantService('你是莉娅。\n- 以后请叫我船长。');
    server = dio.server;
    const seen: Array<string | undefined> = [];
    const h = await boot(server.url, seen);
    await h.runTurn(input);
    expect(dio.versions).toHaveLength(2);
    const again = await h.runTurn({ ...input, step: 1 });
    expect(seen).toEqual([dio.versions[0], dio.versions[0]]);
    expect(again.events.find((event) => event.type === 'dio/active-prompt-applied')?.data).toMatchObject({ versionId: 'v1', compiledPromptSha256: sha(dio.versions[0]!), reason: 'before-own-requirement' });
  });
});
