import { DioClient } from '@troupe/plugin-dio';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { call, closeAfterEach, registerLia, scheduleAs, startTestService, TOKENS } from './helpers/test-service.js';

// Tasks belong to (user, request id): request ids are derived from RP turn ids, which two players
// may well share (both start at "turn-1"), so one player's task must never block, reveal or stand
// in for another's.

const SPACED = { user: 'Ada Lovelace', token: 'ada-token-1234567' };

const track = closeAfterEach();

/** The helper with this file's argument order: user and token first, the turn last. */
const schedule = (client: DioClient, user: string, token: string, instruction: string, turn = 'turn-1') => scheduleAs(client, turn, instruction, user, token);

describe('tasks keyed by (user, request id)', () => {
  it("another user's task with the same turn id neither blocks nor reveals anything", async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    const alice = { userAuthorization: `Bearer ${TOKENS.alice}`, intervalMs: 20 };
    const bob = { userAuthorization: `Bearer ${TOKENS.bob}`, intervalMs: 20 };
    const aliceTask = await client.waitForTerminal((await schedule(client, 'alice', TOKENS.alice, '从现在起莉娅都用短句回答。')).requestId, alice);
    // Bob plays his own turn-1 with other content: accepted (no 403, no 409), his own task.
    const accepted = await schedule(client, 'bob', TOKENS.bob, '以后每句话结尾加一个“嗯”。');
    expect(accepted.requestId).toBe('turn-1:dio');
    const bobTask = await client.waitForTerminal(accepted.requestId, bob);
    expect(bobTask).toMatchObject({ status: 'succeeded', promptChanged: true });
    expect(bobTask.compiledPromptSha256).not.toBe(aliceTask.compiledPromptSha256);
    // Each sees only their own task under the shared id, and their own prompt.
    expect(await client.waitForTerminal('turn-1:dio', alice)).toEqual(aliceTask);
    const bobPrompt = await client.activePrompt({ userId: 'bob', rpConversationId: 'conversation-8', targetPromptId: 'lia-character', userAuthorization: bob.userAuthorization });
    expect(bobPrompt?.compiledPrompt).toContain('嗯');
    expect(bobPrompt?.compiledPrompt).not.toContain('短句');
    // Re-sending is still idempotent per user, and a changed body still conflicts — for that user only.
    await expect(schedule(client, 'bob', TOKENS.bob, '以后每句话结尾加一个“嗯”。')).resolves.toMatchObject({ requestId: 'turn-1:dio' });
    await expect(schedule(client, 'bob', TOKENS.bob, 'something else')).rejects.toMatchObject({ status: 409 });
    expect((await call(running.url, 'GET', '/v1/director/tasks/by-request/turn-1%3Adio', TOKENS.alice)).json.status).toBe('succeeded');
  });

  it('a user id the kernel accepts (with a space) schedules, polls and reads its prompt', async () => {
    const running = track(await startTestService({ tokens: [[SPACED.token, SPACED.user]] }));
    await registerLia(running.url);
    const client = new DioClient(running.url, 2_000);
    const auth = `Bearer ${SPACED.token}`;
    const task = await client.waitForTerminal((await schedule(client, SPACED.user, SPACED.token, '从现在起莉娅都用短句回答。')).requestId, { userAuthorization: auth, intervalMs: 20 });
    expect(task.status).toBe('succeeded');
    const prompt = await client.activePrompt({ userId: SPACED.user, rpConversationId: 'conversation-8', targetPromptId: 'lia-character', userAuthorization: auth });
    expect(prompt?.compiledPrompt).toContain('短句');
    // Somebody else's token still cannot act for that user.
    await expect(schedule(client, SPACED.user, TOKENS.alice, 'x', 'turn-2')).rejects.toMatchObject({ status: 403 });
  });

  it('DIO_TOKENS takes such user ids (spaces, ":"), and says clearly what it cannot take', () => {
    const config = readConfig({ DIO_TOKENS: `${SPACED.token}:${SPACED.user}, other-token-123:team:lead` });
    expect([...config.tokens]).toEqual([
      [SPACED.token, SPACED.user],
      ['other-token-123', 'team:lead'],
    ]);
    expect(() => readConfig({ DIO_TOKENS: `${SPACED.token}:${'x'.repeat(300)}` })).toThrow(/userId 1–256 characters/);
    expect(() => readConfig({ DIO_TOKENS: `${SPACED.token}:` })).toThrow(/DIO_TOKENS entry #1/);
  });
});
