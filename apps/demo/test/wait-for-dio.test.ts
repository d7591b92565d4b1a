import { ManualClock, MemorySessionLog } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { waitForDioTask } from '../src/showcase/wait-for-dio.js';

const at = new Date(0).toISOString();
const event = (type: string, requestId: string) => ({ turnId: 't1', step: 0, type, ignorable: true, at, data: { requestId } });

describe('waitForDioTask (the showcase watching the session log)', () => {
  it('finds the terminal event of its own request once it is appended, ignoring other requests', async () => {
    const clock = new ManualClock();
    const sessions = new MemorySessionLog();
    await sessions.append('s1', [event('dio/scheduled', 't1:dio')]);
    const waiting = waitForDioTask(sessions, 's1', 't1:dio', { clock, intervalMs: 200, timeoutMs: 10_000 });
    await clock.advance(400);
    await sessions.append('s1', [event('dio/task-terminal', 'other:dio')]);
    await clock.advance(200);
    await sessions.append('s1', [event('dio/task-terminal', 't1:dio')]);
    await clock.advance(200);
    expect(await waiting).toMatchObject({ type: 'dio/task-terminal', data: { requestId: 't1:dio' } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('gives up with undefined when the budget is spent', async () => {
    const clock = new ManualClock();
    const waiting = waitForDioTask(new MemorySessionLog(), 's1', 't1:dio', { clock, intervalMs: 200, timeoutMs: 1_000 });
    await clock.advance(1_000);
    expect(await waiting).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });

  it('an abort stops the polling at once with the abort reason and leaves nothing scheduled', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const reason = new DOMException('showcase stopped', 'AbortError');
    const waiting = waitForDioTask(new MemorySessionLog(), 's1', 't1:dio', { clock, intervalMs: 200, timeoutMs: 60_000, signal: controller.signal });
    await clock.advance(400);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
  });
});
