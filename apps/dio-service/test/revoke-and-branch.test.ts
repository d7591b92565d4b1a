import { createHarness, type Harness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { DioSessionRequirementsToken, dioPlugin } from '@troupe/plugin-dio';
import { describe, expect, it } from 'vitest';
import { call, closeAfterEach, registerLia, startTestService, TOKENS } from './helpers/test-service.js';

// Item 8 of issue 13: a revocation is part of the session's story (recorded in its log, so a
// branch replays it), and a branched session keeps the lasting requirements its branch point had
// (the reference service forks the DIO conversation).

const SHORT = '从现在起莉娅都用短句回答。';
const HUM = '以后每句话结尾加一个“嗯”。';
const LATER = '以后都叫我阿明。';
const player = { userId: 'alice', authorization: `Bearer ${TOKENS.alice}` };

const track = closeAfterEach();

/** Every turn states a requirement: the director calls schedule_dio once, then stops. */
function schedulingModel(turns: number): ScriptedChatModel {
  const director = Array.from({ length: turns }, (_, n) => [{ text: '', toolCalls: [{ id: `call-${n}`, name: 'schedule_dio', arguments: {} }] }, 'none']).flat();
  return new ScriptedChatModel({ byStage: { director, actor: Array.from({ length: turns }, () => '好。') } });
}

async function settled(h: Harness): Promise<void> {
  for (let tries = 0; tries < 500 && h.backgroundTasks > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(h.backgroundTasks).toBe(0);
}

async function requirements(url: string, conversation: string): Promise<string[]> {
  const listed = await call(url, 'GET', `/v1/director/requirements?userId=alice&conversationId=${conversation}&targetPromptId=lia-character`, TOKENS.alice);
  return listed.json.requirements.map((requirement: { text: string }) => requirement.text);
}

describe('revoking and branching keep the DIO story in the session log', () => {
  it('records a revocation, and a branch forks the conversation with the requirements its branch point had', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const sessionLog = new MemorySessionLog();
    const harness = track(await createHarness({
      plugins: [dioPlugin({ baseUrl: running.url, targetPromptId: 'lia-character', pollIntervalMs: 20 })],
      model: schedulingModel(3),
      sessionLog,
      scenario: { preActorDirector: true },
    }));
    const dio = harness.resolve(DioSessionRequirementsToken);
    await harness.runTurn({ ...player, sessionId: 'main', turnId: 'turn-1', text: SHORT });
    await harness.runTurn({ ...player, sessionId: 'main', turnId: 'turn-2', text: HUM });
    await settled(harness);
    // The player revokes the first requirement: the log says which one, with its text and request id.
    const listed = await call(running.url, 'GET', '/v1/director/requirements?userId=alice&conversationId=main&targetPromptId=lia-character', TOKENS.alice);
    const short = listed.json.requirements.find((requirement: { text: string }) => requirement.text === SHORT);
    const revoked = await dio.revoke({ ...player, sessionId: 'main', requirementId: short.id, targetPromptId: 'lia-character' });
    expect(revoked.promptChanged).toBe(true);
    const revokeEvent = (await sessionLog.read('main')).find((event) => event.type === 'dio/requirement-revoked');
    expect(revokeEvent?.data).toMatchObject({ requirementId: short.id, requestId: 'turn-1:dio', text: SHORT, targetPromptId: 'lia-character', promptChanged: true });
    await harness.runTurn({ ...player, sessionId: 'main', turnId: 'turn-3', text: LATER });
    await settled(harness);
    expect(await requirements(running.url, 'main')).toEqual([HUM, LATER]);

    // Branch right after the revocation: the branch has HUM only (not the revoked SHORT, not the later LATER).
    const events = await sessionLog.read('main');
    const atRevoke = events.find((event) => event.type === 'dio/requirement-revoked');
    await sessionLog.branch('main', atRevoke?.id ?? '', 'side');
    expect(await dio.forkForBranch({ ...player, parentSessionId: 'main', sessionId: 'side' })).toEqual([
      { targetPromptId: 'lia-character', status: 'forked', requirements: 1, versionId: 'v1' },
    ]);
    expect(await requirements(running.url, 'side')).toEqual([HUM]);
    const forked = (await sessionLog.read('side')).at(-1);
    expect(forked).toMatchObject({ type: 'dio/conversation-forked', data: { fromRpConversationId: 'main', rpConversationId: 'side', keptRequestIds: ['turn-2:dio'] } });
    // The branched session's next turn uses the forked prompt.
    const active = await call(running.url, 'GET', '/v1/director/active-prompt?userId=alice&conversationId=side&targetPromptId=lia-character', TOKENS.alice);
    expect(active.json.compiledPrompt).toContain('嗯');
    expect(active.json.compiledPrompt).not.toContain('短句');

    // A branch of the branch replays the fork event: it keeps HUM too. Forking again is idempotent.
    await sessionLog.branch('side', forked?.id ?? '', 'side-2');
    expect((await dio.forkForBranch({ ...player, parentSessionId: 'side', sessionId: 'side-2' }))[0]).toMatchObject({ status: 'forked', requirements: 1 });
    expect(await requirements(running.url, 'side-2')).toEqual([HUM]);
    // A branch taken before any requirement has nothing to fork and records nothing.
    await sessionLog.branch('main', events[0]?.id ?? '', 'early');
    expect(await dio.forkForBranch({ ...player, parentSessionId: 'main', sessionId: 'early' })).toEqual([]);
  });

  it('another user cannot fork my conversation, and a fork never overwrites a conversation that has requirements', async () => {
    const running = track(await startTestService());
    await registerLia(running.url);
    const body = { userId: 'alice', targetPromptId: 'lia-character', fromConversationId: 'main', toConversationId: 'other' };
    expect((await call(running.url, 'POST', '/v1/director/conversations/fork', TOKENS.bob, body)).status).toBe(403);
    // Give "other" a requirement of its own, then try to fork into it.
    const sessionLog = new MemorySessionLog();
    const harness = track(await createHarness({ plugins: [dioPlugin({ baseUrl: running.url, targetPromptId: 'lia-character', pollIntervalMs: 20 })], model: schedulingModel(2), sessionLog, scenario: { preActorDirector: true } }));
    await harness.runTurn({ ...player, sessionId: 'main', turnId: 'turn-1', text: SHORT });
    await harness.runTurn({ ...player, sessionId: 'other', turnId: 'turn-9', text: HUM });
    await settled(harness);
    const conflict = await call(running.url, 'POST', '/v1/director/conversations/fork', TOKENS.alice, body);
    expect(conflict).toMatchObject({ status: 409, json: { error: { code: 'CONVERSATION_EXISTS' } } });
    expect(await requirements(running.url, 'other')).toEqual([HUM]);
  });
});
