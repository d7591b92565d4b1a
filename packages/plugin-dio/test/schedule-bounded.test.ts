import { createHarness, type SessionEvent } from '@troupe/kernel';
import { ManualClock, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { dioPlugin, type FetchLike } from '../src/index.js';

const REQUIREMENT = '从现在起莉娅都用短句回答，少用比喻。';
const scheduleCall = { text: '', toolCalls: [{ id: 'call-1', name: 'schedule_dio', arguments: {} }] };

/** A DIO service that is down (connection refused) while `state.down`, and contract-faithful after. */
function flakyService(state: { down: boolean }): FetchLike {
  return async (url, init) => {
    if (init.signal?.aborted) throw init.signal.reason;
    if (state.down) throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    const { pathname } = new URL(url);
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (init.method === 'POST' && pathname === '/v1/chat') {
      const body = JSON.parse(String(init.body));
      return json(202, { ok: true, accepted: true, conversationId: body.conversationId, targetPromptId: body.targetPromptId, taskMessageId: body.messageId, requestId: body.requestId });
    }
    if (pathname.startsWith('/v1/director/tasks/by-request/')) {
      return json(200, { requestId: decodeURIComponent(pathname.split('/').pop() ?? ''), status: 'succeeded', promptChanged: false });
    }
    return json(404, {});
  };
}

async function boot(state: { down: boolean }) {
  const clock = new ManualClock();
  const sessionLog = new MemorySessionLog();
  const harness = await createHarness({
    plugins: [dioPlugin({ baseUrl: 'http://127.0.0.1:9', targetPromptId: 'lia-character', fetch: flakyService(state) })],
    model: new ScriptedChatModel({ byStage: { director: [scheduleCall, 'none'] } }),
    sessionLog,
    clock,
    scenario: { preActorDirector: true },
  });
  return { clock, sessionLog, harness };
}

/** Advances virtual time in 100 ms steps until `promise` settles; returns the virtual time it took. */
async function virtualTimeOf(clock: ManualClock, promise: Promise<unknown>): Promise<number> {
  const start = clock.now();
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled && clock.now() - start < 60_000) await clock.advance(100);
  return clock.now() - start;
}

const dioTypes = (events: readonly SessionEvent[]) => events.filter((e) => e.type.startsWith('dio/')).map((e) => e.type);

describe('schedule_dio on the critical path is bounded', () => {
  it('with the service down the turn replies after lookup + schedule bounds (≤ 3 s), and the background ends in dio/schedule-failed', async () => {
    const { clock, sessionLog, harness } = await boot({ down: true });
    const turn = harness.runTurn({ sessionId: 'c8', turnId: 't1', text: REQUIREMENT, userId: 'user-42' });
    // 1.5 s for the lookup, 1.5 s for the submission: never the 15 s of schedule retries.
    expect(await virtualTimeOf(clock, turn)).toBeLessThanOrEqual(3_100);
    const result = await turn;
    expect(result.reply).toBe(`echo: ${REQUIREMENT}`);
    expect(dioTypes(result.events)).toEqual(['dio/active-prompt-degraded', 'dio/schedule-pending']);
    expect(result.events.find((e) => e.type === 'dio/schedule-pending')?.data).toMatchObject({ requestId: 't1:dio', code: 'DIO_NETWORK', failureClass: 'transient' });
    expect(harness.backgroundTasks).toBe(1);
    await clock.advance(15_000);
    expect(harness.backgroundTasks).toBe(0);
    const all = await sessionLog.read('c8');
    expect(dioTypes(all)).toEqual(['dio/active-prompt-degraded', 'dio/schedule-pending', 'dio/schedule-failed']);
    expect(all.at(-1)?.data).toMatchObject({ requestId: 't1:dio', code: 'DIO_NETWORK' });
    await harness.close();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a service that comes back within the budget: the background submits, then records the task outcome', async () => {
    const state = { down: true };
    const { clock, sessionLog, harness } = await boot(state);
    const turn = harness.runTurn({ sessionId: 'c8', turnId: 't1', text: REQUIREMENT, userId: 'user-42' });
    expect(await virtualTimeOf(clock, turn)).toBeLessThanOrEqual(3_100);
    state.down = false;
    await clock.advance(5_000);
    expect(dioTypes(await sessionLog.read('c8'))).toEqual(['dio/active-prompt-degraded', 'dio/schedule-pending', 'dio/scheduled', 'dio/task-terminal']);
    expect((await sessionLog.read('c8')).at(-1)?.data).toMatchObject({ requestId: 't1:dio', status: 'succeeded' });
    await harness.close();
  });
});
