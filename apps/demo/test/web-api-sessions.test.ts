import { describe, expect, it } from 'vitest';
import { expectError, freshId, playTurn } from './support/api-client.js';
import { eventually } from './support/web-fixture.js';
import { setupWebFixture } from './support/setup-web-fixture.js';

const fx = setupWebFixture();
const { api } = fx;

describe('sessions and turns', () => {
  it('enables a story for a session, streams a turn and shows its messages, events and export', async () => {
    const story = freshId('harbor');
    const session = freshId('chat');
    await api('POST', '/api/stories', { id: story, name: '雾港' });
    await api('POST', `/api/stories/${story}/characters`, { baseRevision: 1, id: 'lia', name: 'Lia', persona: '灯塔守护者' });
    await api('POST', `/api/stories/${story}/sections`, { baseRevision: 2, id: 'scene', title: '场景', kind: 'prose' });
    expectError(await api('GET', `/api/sessions/${session}/messages`), 404, 'SESSION_NOT_FOUND');
    expectError(await api('PUT', `/api/sessions/${session}/story`, { storyId: 'missing' }), 404, 'STORY_WORKSPACE_NOT_FOUND');
    expect((await api('PUT', `/api/sessions/${session}/story`, { storyId: story })).body).toEqual({ sessionId: session, storyId: story });
    expect((await api('GET', `/api/sessions/${session}/story`)).body).toEqual({ sessionId: session, storyId: story });

    const messages = await playTurn(fx.server.url, session, '你好，莉娅。今晚的雾真大。');
    const stages = messages.filter((m) => m.event === 'stage').map((m) => m.data as { stage: string; status: string });
    expect(stages).toContainEqual(expect.objectContaining({ stage: 'story/director', status: 'started' }));
    expect(stages).toContainEqual(expect.objectContaining({ stage: 'story/editor', status: 'done' }));
    const deltas = messages.filter((m) => m.event === 'delta').map((m) => (m.data as { text: string }).text);
    const result = messages.at(-1);
    expect(result?.event).toBe('result');
    const view = result?.data as { reply: string; prepared: { history: { role: string; content: string }[] }; events: { type: string }[] };
    expect(view.reply.length).toBeGreaterThan(0);
    expect(deltas.join('')).toBe(view.reply);
    expect(view.prepared.history.at(-1)).toMatchObject({ role: 'user', content: '你好，莉娅。今晚的雾真大。' });
    expect(view.events.map((e) => e.type)).toContain('kernel/turn-committed');

    const chat = await api('GET', `/api/sessions/${session}/messages`);
    expect(chat.body.messages).toEqual([expect.objectContaining({ input: '你好，莉娅。今晚的雾真大。', reply: view.reply })]);
    const events = await api('GET', `/api/sessions/${session}/events`);
    const types = events.body.events.map((e: { type: string }) => e.type);
    expect(types).toContain('agent-rp/story-workspace-selected');
    expect(types).toContain('agent-rp/story-draft-prepared');
    const first = events.body.events[0].id;
    const after = await api('GET', `/api/sessions/${session}/events?after=${first}`);
    expect(after.body.events.length).toBe(events.body.events.length - 1);
    expectError(await api('GET', `/api/sessions/${session}/events?after=e999999`), 404, 'SESSION_EVENT_NOT_FOUND');
    expectError(await api('GET', `/api/sessions/${session}/events?after=%2F..`), 400, 'INVALID_ID');

    const exported = await api('GET', `/api/sessions/${session}/export`);
    expect(exported.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    expect(exported.headers.get('content-disposition')).toContain(`${session}.jsonl`);
    expect(exported.text.trim().split('\n').length).toBe(events.body.events.length);
    expectError(await api('GET', '/api/sessions/nobody/export'), 404, 'SESSION_NOT_FOUND');

    const list = await api('GET', '/api/sessions');
    expect(list.body.sessions).toContainEqual(expect.objectContaining({ id: session, turns: 1, storyId: story }));
    expect((await api('DELETE', `/api/sessions/${session}/story`)).body).toEqual({ sessionId: session, storyId: null });
    expect((await api('GET', `/api/sessions/${session}/story`)).body.storyId).toBeNull();
  });

  it('validates the turn request before streaming', async () => {
    const session = freshId('chat');
    expectError(await api('POST', `/api/sessions/${session}/turns`, { text: '   ' }), 400, 'INVALID_REQUEST');
    expectError(await api('POST', `/api/sessions/${session}/turns`, { text: 'hi', extra: 1 }), 400, 'INVALID_REQUEST');
    expectError(await api('GET', `/api/sessions/${session}/messages`), 404, 'SESSION_NOT_FOUND');
  });
});

describe('DIO view', () => {
  it('shows the task, the compiled prompt and the requirements, and revokes one', async () => {
    const session = freshId('dio');
    const empty = await api('GET', `/api/sessions/${session}/dio`);
    expect(empty.body).toMatchObject({ sessionId: session, activePrompt: null, task: null, lastLookup: null, requirements: [] });

    const messages = await playTurn(fx.server.url, session, '从现在起莉娅都用短句回答，少用比喻。');
    expect(messages.filter((m) => m.event === 'progress').map((m) => (m.data as { type: string }).type)).toContain('dio/scheduled');
    const view = await eventually(async () => {
      const answer = await api('GET', `/api/sessions/${session}/dio`);
      return answer.body.task?.status === 'succeeded' ? answer.body : undefined;
    }, 'the DIO task to succeed');
    expect(view.task).toMatchObject({ status: 'succeeded', promptChanged: true });
    expect(view.activePrompt.changeset.added).toEqual([expect.objectContaining({ text: '从现在起莉娅都用短句回答，少用比喻。' })]);
    expect(view.activePrompt.hashVerified).toBe(true);
    expect(view.activePrompt.compiledPrompt).toContain('从现在起莉娅都用短句回答，少用比喻。');
    expect(view.activePrompt.compiledPromptSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(view.activePrompt.compiledPromptSha256).toBe(view.task.compiledPromptSha256);
    expect(view.requirements).toEqual([expect.objectContaining({ text: '从现在起莉娅都用短句回答，少用比喻。' })]);

    await playTurn(fx.server.url, session, '灯塔还亮着吗？');
    const applied = await api('GET', `/api/sessions/${session}/dio`);
    expect(applied.body.lastLookup).toMatchObject({ outcome: 'applied' });

    // The player's bearer token stays on the server.
    const token = fx.demo.dio.authorization.replace(/^Bearer /, '');
    expect(applied.text).not.toContain(token);
    expect((await api('GET', `/api/sessions/${session}/export`)).text).not.toContain(token);

    const requirementId = view.requirements[0].id as string;
    const revoked = await api('DELETE', `/api/sessions/${session}/dio/requirements/${requirementId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ ok: true, promptChanged: true });
    const afterRevoke = (await api('GET', `/api/sessions/${session}/dio`)).body;
    expect(afterRevoke.requirements).toEqual([]);
    // The revocation is part of the session's story: recorded in its log and shown in the view.
    expect(afterRevoke.changes).toEqual([expect.objectContaining({ kind: 'revoked', requirementId, text: '从现在起莉娅都用短句回答，少用比喻。' })]);
    const logged = (await api('GET', `/api/sessions/${session}/export`)).text.split('\n').filter((line) => line.includes('dio/requirement-revoked'));
    expect(logged).toHaveLength(1);
    expectError(await api('DELETE', `/api/sessions/${session}/dio/requirements/${requirementId}`), 404, 'REQUIREMENT_NOT_FOUND');
    expectError(await api('DELETE', `/api/sessions/${session}/dio/requirements/bad%20id`), 400, 'INVALID_ID');
  });

  it('deleting the exchange that stated a requirement, or editing its line, revokes that requirement: the chat is what is shown', async () => {
    const stated = async (session: string) => {
      await playTurn(fx.server.url, session, '你好。');
      await playTurn(fx.server.url, session, '从现在起莉娅都用短句回答，少用比喻。');
      return eventually(async () => {
        const answer = await api('GET', `/api/sessions/${session}/dio`);
        return answer.body.task?.status === 'succeeded' && answer.body.requirements.length === 1 ? answer.body : undefined;
      }, 'the requirement to be active');
    };
    const messagesOf = async (session: string) => (await api('GET', `/api/sessions/${session}/messages`)).body.messages as { turnId: string }[];
    const revokedEvents = async (session: string) => ((await api('GET', `/api/sessions/${session}/events`)).body.events as { type: string }[]).filter((e) => e.type === 'dio/requirement-revoked');

    const deleted = freshId('dio-delete');
    await stated(deleted);
    const [, stating] = await messagesOf(deleted);
    const removed = await api('DELETE', `/api/sessions/${deleted}/turns/${stating?.turnId}`);
    expect(removed.body).toMatchObject({ removed: [stating?.turnId], dio: { revoked: 1 } });
    expect((await api('GET', `/api/sessions/${deleted}/dio`)).body.requirements).toEqual([]);
    expect(await revokedEvents(deleted)).toHaveLength(1);

    const edited = freshId('dio-edit');
    await stated(edited);
    const [first, line] = await messagesOf(edited);
    // Editing the reply, or another turn's line, keeps the requirement.
    expect((await api('PATCH', `/api/sessions/${edited}/turns/${line?.turnId}`, { reply: '好。' })).body.dio).toBeUndefined();
    expect((await api('PATCH', `/api/sessions/${edited}/turns/${first?.turnId}`, { input: '你好呀。' })).body.dio).toBeUndefined();
    expect((await api('GET', `/api/sessions/${edited}/dio`)).body.requirements).toHaveLength(1);
    const changed = await api('PATCH', `/api/sessions/${edited}/turns/${line?.turnId}`, { input: '今天天气不错。' });
    expect(changed.body).toMatchObject({ turn: { input: '今天天气不错。' }, dio: { revoked: 1 } });
    expect((await api('GET', `/api/sessions/${edited}/dio`)).body.requirements).toEqual([]);
  });
});

describe('a session too long to read whole', () => {
  it('is still listed and shows its chat, its regenerate and continue checks work: those read only the chat events', async () => {
    const session = freshId('too-long');
    for (const text of ['第一句。', '第二句。']) await playTurn(fx.server.url, session, text);
    const log = fx.demo.storage.sessions;
    const read = log.read.bind(log);
    // What storage-fs answers for a log past V8's string limit (a 1 650-exchange chat with its prompt records).
    log.read = async (id, options) => {
      if (id === session) throw new Error('Cannot create a string longer than 0x1fffffe8 characters (ERR_STRING_TOO_LONG)');
      return read(id, options);
    };
    try {
      const list = await api('GET', '/api/sessions');
      expect(list.status).toBe(200);
      expect((list.body.sessions as { id: string; turns: number }[]).find((row) => row.id === session)).toMatchObject({ turns: 2 });
      const messages = await api('GET', `/api/sessions/${session}/messages`);
      expect(messages.status).toBe(200);
      expect((messages.body.messages as { input: string }[]).map((m) => m.input)).toEqual(['第一句。', '第二句。']);
      expectError(await api('POST', `/api/sessions/${session}/turns/not-last/regenerate`, {}), 404, 'KERNEL_TURN_NOT_FOUND');
    } finally {
      log.read = read;
    }
  });
});

