import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { DioSessionRequirementsToken, dioPlugin } from '../src/index.js';
import { type LoopbackServer, startLoopbackServer } from './helpers/loopback-server.js';

// A DIO service without the fork endpoint (or one that fails) must never break a branch: the
// branched session gets one clear `dio/fork-degraded` event naming why, and nothing throws.

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const scheduled = (requestId: string) => ({
  turnId: requestId.replace(/:dio$/, ''),
  step: 0,
  type: 'dio/scheduled',
  ignorable: true,
  at: new Date(0).toISOString(),
  data: { requestId, dioConversationId: 'dio_main', taskMessageId: `${requestId}:assistant`, rpConversationId: 'main', targetPromptId: 'lia', userId: 'alice', appliesFrom: 'next_turn' },
});

async function branchedSession(sessionLog: MemorySessionLog): Promise<void> {
  await sessionLog.append('main', [scheduled('t1:dio'), scheduled('t2:dio')]);
  await sessionLog.append('main', [
    { turnId: '', step: 0, type: 'dio/requirement-revoked', ignorable: true, at: new Date(0).toISOString(), data: { targetPromptId: 'lia', requestId: 't1:dio', requirementId: 'r1' } },
  ]);
  await sessionLog.branch('main', 'e3', 'side');
}

describe('forking on branch', () => {
  for (const status of [404, 405]) {
    it(`a service answering ${status} to the fork → dio/fork-degraded (unsupported), the branch stands`, async () => {
      server = await startLoopbackServer(() => ({ status, json: { ok: false, error: { code: 'NOT_FOUND', message: 'No route' } } }));
      const sessionLog = new MemorySessionLog();
      const harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })], model: new ScriptedChatModel(), sessionLog });
      await branchedSession(sessionLog);
      const outcomes = await harness.resolve(DioSessionRequirementsToken).forkForBranch({ parentSessionId: 'main', sessionId: 'side', userId: 'alice', authorization: 'Bearer secret-token' });
      expect(outcomes).toEqual([{ targetPromptId: 'lia', status: 'degraded', reason: 'unsupported', code: 'DIO_UNSUPPORTED', message: expect.stringContaining(`HTTP ${status}`) }]);
      const event = (await sessionLog.read('side')).at(-1);
      expect(event).toMatchObject({ type: 'dio/fork-degraded', data: { reason: 'unsupported', code: 'DIO_UNSUPPORTED', keepRequestIds: ['t2:dio'], fromRpConversationId: 'main', rpConversationId: 'side' } });
      // What was asked: the requirement revoked before the branch point is not carried over.
      expect(JSON.parse(server.requests[0]?.body ?? '{}')).toEqual({ userId: 'alice', targetPromptId: 'lia', fromConversationId: 'main', toConversationId: 'side', keepRequestIds: ['t2:dio'] });
      expect(JSON.stringify(event)).not.toContain('secret-token');
      await harness.close();
    });
  }

  it('a failing service → dio/fork-degraded (failed) with its code, never a crash', async () => {
    server = await startLoopbackServer(() => ({ status: 400, json: { ok: false, error: { code: 'INVALID_REQUEST', message: 'no' } } }));
    const sessionLog = new MemorySessionLog();
    const harness = await createHarness({ plugins: [dioPlugin({ baseUrl: server.url, targetPromptId: 'lia' })], model: new ScriptedChatModel(), sessionLog });
    await branchedSession(sessionLog);
    const [outcome] = await harness.resolve(DioSessionRequirementsToken).forkForBranch({ parentSessionId: 'main', sessionId: 'side', userId: 'alice' });
    expect(outcome).toMatchObject({ status: 'degraded', reason: 'failed', code: 'DIO_HTTP_PERMANENT' });
    expect((await sessionLog.read('side')).at(-1)?.type).toBe('dio/fork-degraded');
    await harness.close();
  });
});
