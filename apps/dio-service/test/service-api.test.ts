import { createHash } from 'node:crypto';
import { DioClient } from '@troupe/plugin-dio';
import { describe, expect, it } from 'vitest';
import { ADMIN, call, closeAfterEach, LIA_BASE, registerLia, scheduleAs, startTestService, TOKENS } from './helpers/test-service.js';

const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const query = (user: string, conversation = 'conversation-8') => `?userId=${user}&conversationId=${conversation}&targetPromptId=lia-character`;

const track = closeAfterEach();

const schedule = scheduleAs;

describe('reference DIO service', () => {
  it('accepts a requirement, compiles a COMPLETE prompt (base + requirement), and serves it with a valid SHA-256', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    const accepted = await schedule(client, 'rp-turn-101', REQUIREMENT);
    expect(accepted.requestId).toBe('rp-turn-101:dio');
    const task = await client.waitForTerminal(accepted.requestId, { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 });
    expect(task).toMatchObject({ status: 'succeeded', promptChanged: true, sourceVersionId: 's1' });
    const prompt = await client.activePrompt({ userId: 'alice', rpConversationId: 'conversation-8', targetPromptId: 'lia-character', userAuthorization: `Bearer ${TOKENS.alice}` });
    expect(prompt?.compiledPrompt.startsWith(LIA_BASE)).toBe(true);
    expect(prompt?.compiledPrompt).toContain(REQUIREMENT);
    expect(prompt?.compiledPromptSha256).toBe(sha(prompt?.compiledPrompt ?? ''));
    expect(prompt?.compiledPromptSha256).toBe(task.compiledPromptSha256);
    expect(prompt).toMatchObject({ versionId: 'v1', sourceVersionId: 's1', changeset: { added: [{ id: 'r1', text: REQUIREMENT }], removed: [] } });
  });

  it('keeps every active requirement in the compiled prompt, lists them, revokes one and recompiles', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    const auth = { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 };
    await client.waitForTerminal((await schedule(client, 't1', REQUIREMENT)).requestId, auth);
    await client.waitForTerminal((await schedule(client, 't2', '以后每句话结尾加一个“嗯”。')).requestId, auth);
    const listed = await call(running.url, 'GET', `/v1/director/requirements${query('alice')}`, TOKENS.alice);
    expect(listed.status).toBe(200);
    expect(listed.json.requirements.map((requirement: { id: string; text: string }) => [requirement.id, requirement.text])).toEqual([
      ['r1', REQUIREMENT],
      ['r2', '以后每句话结尾加一个“嗯”。'],
    ]);
    const active = await call(running.url, 'GET', `/v1/director/active-prompt${query('alice')}`, TOKENS.alice);
    expect(active.json.versionId).toBe('v2');
    expect(active.json.compiledPrompt).toContain(LIA_BASE);
    expect(active.json.compiledPrompt).toContain(REQUIREMENT);
    expect(active.json.compiledPrompt).toContain('“嗯”');

    const revoked = await call(running.url, 'DELETE', `/v1/director/requirements/r1${query('alice')}`, TOKENS.alice);
    expect(revoked).toMatchObject({ status: 200, json: { ok: true, promptChanged: true, versionId: 'v3' } });
    const after = await call(running.url, 'GET', `/v1/director/active-prompt${query('alice')}`, TOKENS.alice);
    expect(after.json.compiledPrompt).toContain(LIA_BASE);
    expect(after.json.compiledPrompt).not.toContain(REQUIREMENT);
    expect(after.json.changeset.removed).toEqual([{ id: 'r1', text: REQUIREMENT }]);
    expect((await call(running.url, 'DELETE', `/v1/director/requirements/r1${query('alice')}`, TOKENS.alice)).status).toBe(404);
  });

  it('a repeated requirement succeeds with promptChanged: false; a resubmitted request id is idempotent; a reused one conflicts', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    const auth = { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 };
    await client.waitForTerminal((await schedule(client, 't1', REQUIREMENT)).requestId, auth);
    const again = await client.waitForTerminal((await schedule(client, 't2', REQUIREMENT)).requestId, auth);
    expect(again).toMatchObject({ status: 'succeeded', promptChanged: false });
    await expect(schedule(client, 't1', REQUIREMENT)).resolves.toMatchObject({ requestId: 't1:dio' });
    await expect(schedule(client, 't1', 'something else')).rejects.toMatchObject({ code: 'DIO_HTTP_PERMANENT', status: 409 });
  });

  it('never lets a user read or change another user’s prompts or requirements (403), nor see their tasks (404)', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    await client.waitForTerminal((await schedule(client, 't1', REQUIREMENT)).requestId, { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 });
    const bob = TOKENS.bob;
    expect((await call(running.url, 'GET', `/v1/director/active-prompt${query('alice')}`, bob)).status).toBe(403);
    expect((await call(running.url, 'GET', `/v1/director/requirements${query('alice')}`, bob)).status).toBe(403);
    expect((await call(running.url, 'DELETE', `/v1/director/requirements/r1${query('alice')}`, bob)).status).toBe(403);
    // Alice's task is answered to bob exactly like a task that does not exist.
    const hidden = await call(running.url, 'GET', '/v1/director/tasks/by-request/t1%3Adio', bob);
    const missing = await call(running.url, 'GET', '/v1/director/tasks/by-request/t404%3Adio', bob);
    expect(hidden.status).toBe(404);
    expect(hidden.json.error.code).toBe(missing.json.error.code);
    // Submitting as alice with bob's token.
    await expect(schedule(client, 't9', REQUIREMENT, 'alice', bob)).rejects.toMatchObject({ status: 403 });
    // Bob's own view is empty, and alice's data is unchanged.
    expect((await call(running.url, 'GET', `/v1/director/active-prompt${query('bob')}`, bob)).status).toBe(404);
    expect((await call(running.url, 'GET', `/v1/director/requirements${query('alice')}`, TOKENS.alice)).json.requirements).toHaveLength(1);
  });

  it('authenticates, validates ids and bodies, and caps body size', async () => {
    const running = track(await startTestService());
    const url = running.url;
    expect((await call(url, 'GET', `/v1/director/active-prompt${query('alice')}`, undefined)).status).toBe(401);
    expect((await call(url, 'GET', `/v1/director/active-prompt${query('alice')}`, 'not-a-real-token')).status).toBe(401);
    expect((await call(url, 'PUT', '/v1/prompts/lia', TOKENS.alice, { content: 'x' })).status).toBe(403);
    expect((await call(url, 'PUT', '/v1/prompts/lia', undefined, { content: 'x' })).status).toBe(403);
    expect((await call(url, 'PUT', '/v1/prompts/..%2Fetc', ADMIN, { content: 'x' })).json.error.code).toBe('INVALID_ID');
    expect((await call(url, 'PUT', '/v1/prompts/lia', ADMIN, { content: '' })).json.error.code).toBe('INVALID_REQUEST');
    expect((await call(url, 'PUT', '/v1/prompts/lia', ADMIN, { content: 'x', extra: 1 })).status).toBe(400);
    expect((await call(url, 'PUT', '/v1/prompts/lia', ADMIN, '{"content": ')).json.error.code).toBe('INVALID_REQUEST');
    const huge = await call(url, 'PUT', '/v1/prompts/lia', ADMIN, { content: 'x'.repeat(70 * 1024) });
    expect(huge).toMatchObject({ status: 413, json: { error: { code: 'BODY_TOO_LARGE' } } });
    expect((await call(url, 'GET', '/v1/director/active-prompt?userId=alice', TOKENS.alice)).json.error.code).toBe('INVALID_ID');
    expect((await call(url, 'GET', '/v1/director/tasks/by-request/a%20b', TOKENS.alice)).json.error.code).toBe('INVALID_ID');
    expect((await call(url, 'GET', '/v1/director/tasks/by-request/nope', TOKENS.alice)).status).toBe(404);
    expect((await call(url, 'GET', '/v1/elsewhere', TOKENS.alice)).status).toBe(404);
    // Unknown base prompt.
    const unknown = await call(url, 'POST', '/v1/chat', TOKENS.alice, {
      conversationId: 'dio_c1',
      requestId: 't:dio',
      messageId: 't:dio:assistant',
      userId: 'alice',
      rpConversationId: 'c1',
      targetPromptId: 'nobody',
      message: 'hi',
      language: 'en',
    });
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'PROMPT_NOT_FOUND' } } });
    // conversationId must be derived from rpConversationId.
    await registerLia(url, 'lia');
    const mismatched = await call(url, 'POST', '/v1/chat', TOKENS.alice, {
      conversationId: 'dio_other',
      requestId: 't:dio',
      messageId: 't:dio:assistant',
      userId: 'alice',
      rpConversationId: 'c1',
      targetPromptId: 'lia',
      message: 'hi',
      language: 'en',
    });
    expect(mismatched.status).toBe(400);
  });

  it('re-registering a base prompt answers 200 and the next compilation uses it', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const replaced = await call(running.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { content: '你是莉娅，灯塔看守人。', characterName: '莉娅' });
    expect(replaced).toMatchObject({ status: 200, json: { created: false } });
    const client = new DioClient(running.url, 2_000);
    await client.waitForTerminal((await schedule(client, 't1', REQUIREMENT)).requestId, { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 });
    const active = await call(running.url, 'GET', `/v1/director/active-prompt${query('alice')}`, TOKENS.alice);
    expect(active.json.compiledPrompt.startsWith('你是莉娅，灯塔看守人。')).toBe(true);
  });

  it("a card's fields register its full definition as the base prompt, so the compiled prompt is the whole character", async () => {
    const running = track(await startTestService());
    const card = {
      name: 'Lia',
      nickname: '莉娅',
      description: '{{char}}是灯塔看守人，照顾{{user}}。',
      personality: '冷静，爱用比喻。',
      scenario: '暴风雨夜，{{user}}来到灯塔。',
      first_mes: '「进来吧。」',
      character_book: null,
    };
    const registered = await call(running.url, 'PUT', '/v1/prompts/lia-character', ADMIN, { character: card, user: '阿明' });
    expect(registered).toMatchObject({ status: 201, json: { created: true } });
    const client = new DioClient(running.url, 2_000);
    await client.waitForTerminal((await schedule(client, 't1', REQUIREMENT)).requestId, { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 });
    const active = await call(running.url, 'GET', `/v1/director/active-prompt${query('alice')}`, TOKENS.alice);
    const compiled: string = active.json.compiledPrompt;
    expect(compiled).toContain('莉娅是灯塔看守人，照顾阿明。');
    // the personality's "爱用比喻" is reversed by the requirement: the merge says which wins
    expect(compiled).toContain("[莉娅's personality: 冷静，爱用比喻。〔已由长期要求 1 取代 / superseded by lasting requirement 1〕]");
    expect(compiled).toContain('[Circumstances and context of the dialogue: 暴风雨夜，阿明来到灯塔。]');
    expect(compiled).toContain(REQUIREMENT);
    expect(compiled).not.toContain('进来吧');
    const empty = await call(running.url, 'PUT', '/v1/prompts/nobody', ADMIN, { character: { name: 'Nobody', description: null } });
    expect(empty).toMatchObject({ status: 400, json: { error: { code: 'INVALID_REQUEST' } } });
    expect((await call(running.url, 'PUT', '/v1/prompts/nobody', ADMIN, { character: { description: 'x' } })).status).toBe(400);
  });
});
