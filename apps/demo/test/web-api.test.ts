import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, parseSse, startWebFixture, type WebFixture } from './support/web-fixture.js';

let fx: WebFixture;
let staticDir: string;

beforeAll(async () => {
  staticDir = await mkdtemp(join(tmpdir(), 'troupe-web-static-'));
  await mkdir(join(staticDir, 'assets'));
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>故事工程</title>');
  await writeFile(join(staticDir, 'assets', 'app-1234.js'), 'console.log(1)');
  fx = await startWebFixture(staticDir);
});

afterAll(async () => {
  await fx?.close();
  await rm(staticDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON answers field by field
  body: any;
  text: string;
  headers: Headers;
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${fx.server.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(5);
}

async function playTurn(sessionId: string, text: string) {
  const response = await fetch(`${fx.server.url}/api/sessions/${sessionId}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await response.text());
}

describe('health, unknown routes and hosts', () => {
  it('answers health with the model id', async () => {
    const answer = await api('GET', '/api/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: true, modelId: 'offline' });
  });

  it('answers an unknown API route with 404 {code, message}', async () => {
    expectError(await api('GET', '/api/nope'), 404, 'NOT_FOUND');
  });

  it('refuses a request addressed to a non-loopback host name (DNS rebinding)', async () => {
    const port = new URL(fx.server.url).port;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/health', headers: { host: `evil.example:${port}` } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).code).toBe('FORBIDDEN_HOST');
  });
});

describe('static files', () => {
  it('serves index.html for / and for app routes, and assets with a long cache', async () => {
    const root = await fetch(`${fx.server.url}/`);
    expect(root.headers.get('content-type')).toMatch(/text\/html/);
    expect(await root.text()).toContain('故事工程');
    const route = await fetch(`${fx.server.url}/stories/fog-harbor`);
    expect(await route.text()).toContain('故事工程');
    const asset = await fetch(`${fx.server.url}/assets/app-1234.js`);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('does not serve files outside the build directory', async () => {
    const port = new URL(fx.server.url).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/..%2f..%2fpackage.json' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(404);
  });
});

describe('story workspaces', () => {
  it('lists, creates, reads and refuses duplicates and bad ids', async () => {
    expect((await api('GET', '/api/stories')).body).toEqual({ stories: [] });
    const created = await api('POST', '/api/stories', { id: 'lighthouse', name: '灯塔 Lighthouse', outline: '# 大纲\n' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'lighthouse', revision: 1, manifest: { name: '灯塔 Lighthouse' } });
    expect(created.body.files['outline.md']).toBe('# 大纲\n');
    expectError(await api('POST', '/api/stories', { id: 'lighthouse', name: 'again' }), 409, 'STORY_WORKSPACE_EXISTS');
    expectError(await api('POST', '/api/stories', { id: 'Bad Id!', name: 'x' }), 400, 'INVALID_REQUEST');
    expectError(await api('POST', '/api/stories', { id: 'ok', name: '' }), 400, 'INVALID_REQUEST');
    const list = await api('GET', '/api/stories');
    expect(list.body.stories).toEqual([{ id: 'lighthouse', name: '灯塔 Lighthouse', revision: 1, characters: 0, sections: 0, sources: 0 }]);
    expect((await api('GET', '/api/stories/lighthouse')).body.manifest.pipeline).toEqual({ maxParallel: 4, webSearch: true });
    expectError(await api('GET', '/api/stories/missing'), 404, 'STORY_WORKSPACE_NOT_FOUND');
    expectError(await api('GET', '/api/stories/BAD..id'), 400, 'INVALID_ID');
  });

  it('rejects bodies that are not JSON, not valid JSON or too large', async () => {
    expectError(await api('POST', '/api/stories', 'id=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await api('POST', '/api/stories', '{"id":'), 400, 'INVALID_JSON');
    const big = { id: 'big', name: 'Big', outline: 'x'.repeat(2 * 1024 * 1024 + 10) };
    expectError(await api('POST', '/api/stories', big), 413, 'BODY_TOO_LARGE');
    expectError(await api('GET', '/api/stories/big'), 404, 'STORY_WORKSPACE_NOT_FOUND');
  });

  it('writes files with the base revision and answers 409 on a stale save without overwriting', async () => {
    await api('POST', '/api/stories', { id: 'files', name: 'Files' });
    const saved = await api('PUT', '/api/stories/files/files', { baseRevision: 1, files: { 'outline.md': '第一幕：雾。\n', 'foreshadowing.md': '- 钥匙\n' } });
    expect(saved.status).toBe(200);
    expect(saved.body.revision).toBe(2);
    expect(saved.body.files['outline.md']).toBe('第一幕：雾。\n');
    // A second tab still on revision 1 must not overwrite the newer text.
    const stale = await api('PUT', '/api/stories/files/files', { baseRevision: 1, files: { 'outline.md': 'old tab text' } });
    expectError(stale, 409, 'STORY_REVISION_CONFLICT');
    expect(stale.body.message).toMatch(/Someone else changed/);
    expect(stale.body.message).toMatch(/reload/);
    const after = await api('GET', '/api/stories/files');
    expect(after.body.revision).toBe(2);
    expect(after.body.files['outline.md']).toBe('第一幕：雾。\n');
  });

  it('refuses paths outside the editable files and files of unknown items', async () => {
    expectError(await api('PUT', '/api/stories/files/files', { baseRevision: 2, files: { 'manifest.json': '{}' } }), 400, 'INVALID_REQUEST');
    expectError(await api('PUT', '/api/stories/files/files', { baseRevision: 2, files: { '../escape.md': 'x' } }), 400, 'INVALID_REQUEST');
    expectError(await api('PUT', '/api/stories/files/files', { baseRevision: 2, files: {} }), 400, 'INVALID_REQUEST');
    expectError(await api('PUT', '/api/stories/files/files', { baseRevision: 2, files: { 'characters/ghost/persona.md': 'x' } }), 404, 'STORY_ITEM_NOT_FOUND');
    expectError(await api('PUT', '/api/stories/files/files', { baseRevision: 0, files: { 'outline.md': 'x' } }), 400, 'INVALID_REQUEST');
    expect((await api('GET', '/api/stories/files')).body.revision).toBe(2);
  });

  it('changes the name and pipeline settings in the manifest', async () => {
    await api('POST', '/api/stories', { id: 'settings', name: 'Settings' });
    const patched = await api('PATCH', '/api/stories/settings/manifest', { baseRevision: 1, name: '设置', pipeline: { maxParallel: 2, model: 'qwen', webSearch: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.manifest).toMatchObject({ name: '设置', pipeline: { maxParallel: 2, model: 'qwen', webSearch: false } });
    const cleared = await api('PATCH', '/api/stories/settings/manifest', { baseRevision: 2, pipeline: { model: null } });
    expect(cleared.body.manifest.pipeline).toEqual({ maxParallel: 2, webSearch: false });
    expectError(await api('PATCH', '/api/stories/settings/manifest', { baseRevision: 3, pipeline: { maxParallel: 9 } }), 400, 'INVALID_REQUEST');
    expectError(await api('PATCH', '/api/stories/settings/manifest', { baseRevision: 1, name: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
    expect((await api('GET', '/api/stories/settings')).body.manifest.name).toBe('设置');
  });

  it('adds, renames, disables and removes characters', async () => {
    await api('POST', '/api/stories', { id: 'cast', name: 'Cast' });
    const added = await api('POST', '/api/stories/cast/characters', { baseRevision: 1, id: 'lia', name: 'Lia', persona: '灯塔守护者', knowledge: '灯油只够三夜' });
    expect(added.status).toBe(201);
    expect(added.body.manifest.characters).toEqual([{ id: 'lia', name: 'Lia', enabled: true }]);
    expect(added.body.files['characters/lia/knowledge.md']).toBe('灯油只够三夜');
    expectError(await api('POST', '/api/stories/cast/characters', { baseRevision: 2, id: 'lia', name: 'Lia 2' }), 409, 'STORY_DUPLICATE_ID');
    expectError(await api('POST', '/api/stories/cast/characters', { baseRevision: 2, id: 'No Way', name: 'x' }), 400, 'INVALID_REQUEST');
    const renamed = await api('PATCH', '/api/stories/cast/characters/lia', { baseRevision: 2, name: '莉娅 Lia', enabled: false });
    expect(renamed.body.manifest.characters).toEqual([{ id: 'lia', name: '莉娅 Lia', enabled: false }]);
    const persona = await api('PUT', '/api/stories/cast/files', { baseRevision: 3, files: { 'characters/lia/persona.md': '新的人设' } });
    expect(persona.body.files['characters/lia/persona.md']).toBe('新的人设');
    expectError(await api('PATCH', '/api/stories/cast/characters/ghost', { baseRevision: 4, name: 'x' }), 404, 'STORY_ITEM_NOT_FOUND');
    expectError(await api('PATCH', '/api/stories/cast/characters/BAD%20ID', { baseRevision: 4, name: 'x' }), 400, 'INVALID_ID');
    expectError(await api('PATCH', '/api/stories/cast/characters/lia', { baseRevision: 2, name: 'stale' }), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', '/api/stories/cast/characters/lia'), 400, 'INVALID_REQUEST');
    const removed = await api('DELETE', '/api/stories/cast/characters/lia?baseRevision=4');
    expect(removed.body.manifest.characters).toEqual([]);
    expect(removed.body.files['characters/lia/persona.md']).toBeUndefined();
  });

  it('adds, updates and removes sections; removing a character un-focuses its sections', async () => {
    await api('POST', '/api/stories', { id: 'parts', name: 'Parts' });
    await api('POST', '/api/stories/parts/characters', { baseRevision: 1, id: 'marco', name: 'Marco' });
    const added = await api('POST', '/api/stories/parts/sections', { baseRevision: 2, id: 'voices', title: '人物反应', kind: 'character', focus: 'marco', reference: '写反应' });
    expect(added.status).toBe(201);
    expect(added.body.manifest.sections).toEqual([{ id: 'voices', title: '人物反应', kind: 'character', order: 0, enabled: true, focus: 'marco' }]);
    expect(added.body.files['sections/voices.md']).toBe('写反应');
    expectError(await api('POST', '/api/stories/parts/sections', { baseRevision: 3, id: 'x', title: 'X', kind: 'poem' }), 400, 'INVALID_REQUEST');
    const updated = await api('PATCH', '/api/stories/parts/sections/voices', { baseRevision: 3, title: 'Voices', order: 2 });
    expect(updated.body.manifest.sections[0]).toMatchObject({ title: 'Voices', order: 2 });
    const unfocused = await api('DELETE', '/api/stories/parts/characters/marco?baseRevision=4');
    expect(unfocused.body.manifest.sections[0].focus).toBeNull();
    expectError(await api('DELETE', '/api/stories/parts/sections/voices?baseRevision=4'), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', '/api/stories/parts/sections/none?baseRevision=5'), 404, 'STORY_ITEM_NOT_FOUND');
    const removed = await api('DELETE', '/api/stories/parts/sections/voices?baseRevision=5');
    expect(removed.body.manifest.sections).toEqual([]);
  });

  it('adds, retitles, disables and removes sources', async () => {
    await api('POST', '/api/stories', { id: 'lore', name: 'Lore' });
    const added = await api('POST', '/api/stories/lore/sources', { baseRevision: 1, id: 'guide', title: '导览', text: '# 雾港导览\n钟楼在北边。' });
    expect(added.status).toBe(201);
    expect(added.body.files['sources/guide.md']).toContain('钟楼');
    const patched = await api('PATCH', '/api/stories/lore/sources/guide', { baseRevision: 2, title: 'Harbor guide', enabled: false });
    expect(patched.body.manifest.sources).toEqual([{ id: 'guide', title: 'Harbor guide', enabled: false }]);
    expectError(await api('POST', '/api/stories/lore/sources', { baseRevision: 3, id: 'guide', title: 'again', text: '' }), 409, 'STORY_DUPLICATE_ID');
    expectError(await api('PATCH', '/api/stories/lore/sources/none', { baseRevision: 3, title: 'x' }), 404, 'STORY_ITEM_NOT_FOUND');
    const removed = await api('DELETE', '/api/stories/lore/sources/guide?baseRevision=3');
    expect(removed.body.manifest.sources).toEqual([]);
    expect(removed.body.files['sources/guide.md']).toBeUndefined();
  });

  it('deletes a workspace only at its current revision', async () => {
    await api('POST', '/api/stories', { id: 'doomed', name: 'Doomed' });
    await api('PUT', '/api/stories/doomed/files', { baseRevision: 1, files: { 'outline.md': 'x' } });
    expectError(await api('DELETE', '/api/stories/doomed?baseRevision=1'), 409, 'STORY_REVISION_CONFLICT');
    expectError(await api('DELETE', '/api/stories/doomed?baseRevision=abc'), 400, 'INVALID_REQUEST');
    const deleted = await api('DELETE', '/api/stories/doomed?baseRevision=2');
    expect(deleted.body).toEqual({ deleted: true, id: 'doomed' });
    expectError(await api('DELETE', '/api/stories/doomed?baseRevision=2'), 404, 'STORY_WORKSPACE_NOT_FOUND');
  });
});

describe('sessions and turns', () => {
  it('enables a story for a session, streams a turn and shows its messages, events and export', async () => {
    await api('POST', '/api/stories', { id: 'harbor', name: '雾港' });
    await api('POST', '/api/stories/harbor/characters', { baseRevision: 1, id: 'lia', name: 'Lia', persona: '灯塔守护者' });
    await api('POST', '/api/stories/harbor/sections', { baseRevision: 2, id: 'scene', title: '场景', kind: 'prose' });
    expectError(await api('GET', '/api/sessions/chat-1/messages'), 404, 'SESSION_NOT_FOUND');
    expectError(await api('PUT', '/api/sessions/chat-1/story', { storyId: 'missing' }), 404, 'STORY_WORKSPACE_NOT_FOUND');
    expectError(await api('PUT', '/api/sessions/Chat%201/story', { storyId: 'harbor' }), 400, 'INVALID_ID');
    expect((await api('PUT', '/api/sessions/chat-1/story', { storyId: 'harbor' })).body).toEqual({ sessionId: 'chat-1', storyId: 'harbor' });
    expect((await api('GET', '/api/sessions/chat-1/story')).body).toEqual({ sessionId: 'chat-1', storyId: 'harbor' });

    const messages = await playTurn('chat-1', '你好，莉娅。今晚的雾真大。');
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

    const chat = await api('GET', '/api/sessions/chat-1/messages');
    expect(chat.body.messages).toEqual([expect.objectContaining({ input: '你好，莉娅。今晚的雾真大。', reply: view.reply })]);
    const events = await api('GET', '/api/sessions/chat-1/events');
    const types = events.body.events.map((e: { type: string }) => e.type);
    expect(types).toContain('agent-rp/story-workspace-selected');
    expect(types).toContain('agent-rp/story-draft-prepared');
    const first = events.body.events[0].id;
    const after = await api('GET', `/api/sessions/chat-1/events?after=${first}`);
    expect(after.body.events.length).toBe(events.body.events.length - 1);
    expectError(await api('GET', '/api/sessions/chat-1/events?after=e999999'), 404, 'SESSION_EVENT_NOT_FOUND');
    expectError(await api('GET', '/api/sessions/chat-1/events?after=%2F..'), 400, 'INVALID_ID');

    const exported = await api('GET', '/api/sessions/chat-1/export');
    expect(exported.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    expect(exported.headers.get('content-disposition')).toContain('chat-1.jsonl');
    expect(exported.text.trim().split('\n').length).toBe(events.body.events.length);
    expectError(await api('GET', '/api/sessions/nobody/export'), 404, 'SESSION_NOT_FOUND');

    const list = await api('GET', '/api/sessions');
    expect(list.body.sessions).toContainEqual(expect.objectContaining({ id: 'chat-1', turns: 1, storyId: 'harbor' }));
    expect((await api('DELETE', '/api/sessions/chat-1/story')).body).toEqual({ sessionId: 'chat-1', storyId: null });
    expect((await api('GET', '/api/sessions/chat-1/story')).body.storyId).toBeNull();
  });

  it('validates the turn request before streaming', async () => {
    expectError(await api('POST', '/api/sessions/chat-2/turns', { text: '   ' }), 400, 'INVALID_REQUEST');
    expectError(await api('POST', '/api/sessions/NOT_OK!/turns', { text: 'hi' }), 400, 'INVALID_ID');
    expectError(await api('POST', '/api/sessions/chat-2/turns', { text: 'hi', extra: 1 }), 400, 'INVALID_REQUEST');
  });
});

describe('DIO view', () => {
  it('shows the task, the compiled prompt and the requirements, and revokes one', async () => {
    const empty = await api('GET', '/api/sessions/dio-1/dio');
    expect(empty.body).toMatchObject({ sessionId: 'dio-1', activePrompt: null, task: null, lastLookup: null, requirements: [] });

    const messages = await playTurn('dio-1', '从现在起莉娅都用短句回答，少用比喻。');
    expect(messages.filter((m) => m.event === 'progress').map((m) => (m.data as { type: string }).type)).toContain('dio/scheduled');
    const view = await eventually(async () => {
      const answer = await api('GET', '/api/sessions/dio-1/dio');
      return answer.body.task?.status === 'succeeded' ? answer.body : undefined;
    }, 'the DIO task to succeed');
    expect(view.task).toMatchObject({ status: 'succeeded', promptChanged: true });
    expect(view.activePrompt.changeset.added).toEqual([expect.objectContaining({ text: '从现在起莉娅都用短句回答，少用比喻。' })]);
    expect(view.activePrompt.hashVerified).toBe(true);
    expect(view.activePrompt.compiledPrompt).toContain('从现在起莉娅都用短句回答，少用比喻。');
    expect(view.activePrompt.compiledPromptSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(view.activePrompt.compiledPromptSha256).toBe(view.task.compiledPromptSha256);
    expect(view.requirements).toEqual([expect.objectContaining({ text: '从现在起莉娅都用短句回答，少用比喻。' })]);

    await playTurn('dio-1', '灯塔还亮着吗？');
    const applied = await api('GET', '/api/sessions/dio-1/dio');
    expect(applied.body.lastLookup).toMatchObject({ outcome: 'applied' });

    // The player's bearer token stays on the server.
    const token = fx.demo.dio.authorization.replace(/^Bearer /, '');
    expect(applied.text).not.toContain(token);
    expect((await api('GET', '/api/sessions/dio-1/export')).text).not.toContain(token);

    const requirementId = view.requirements[0].id as string;
    const revoked = await api('DELETE', `/api/sessions/dio-1/dio/requirements/${requirementId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ ok: true, promptChanged: true });
    expect((await api('GET', '/api/sessions/dio-1/dio')).body.requirements).toEqual([]);
    expectError(await api('DELETE', `/api/sessions/dio-1/dio/requirements/${requirementId}`), 404, 'REQUIREMENT_NOT_FOUND');
    expectError(await api('DELETE', '/api/sessions/dio-1/dio/requirements/bad%20id'), 400, 'INVALID_ID');
    expectError(await api('GET', '/api/sessions/Bad!/dio'), 400, 'INVALID_ID');
  });
});
