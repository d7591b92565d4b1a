import { type ChatModel, type ChatRequest, type ChatStreamPart, createModelRegistry, type KernelError } from '@troupe/kernel';
import { createTestHarness, ManualClock, MemorySessionLog } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from './helpers.js';

/** A model that streams one delta per virtual second, forever. */
function endlessModel(clock: ManualClock): ChatModel {
  return {
    id: 'endless',
    generate: () => new Promise(() => {}),
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      for (;;) {
        await clock.sleep(1_000, request.signal);
        yield { type: 'text-delta', text: 'and then… ' };
      }
    },
  };
}

/** A model that answers `size` characters at once, and one that streams them in 1 MB pieces. */
function hugeModel(size: number, seen: { aborted: boolean }): ChatModel {
  const piece = 'x'.repeat(1024 * 1024);
  return {
    id: 'huge',
    generate: async () => ({ text: 'x'.repeat(size) }),
    async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      request.signal.addEventListener('abort', () => {
        seen.aborted = true;
      });
      for (let sent = 0; sent < size; sent += piece.length) yield { type: 'text-delta', text: piece };
      yield { type: 'finish', response: { text: '' } };
    },
  };
}

const types = async (log: MemorySessionLog, sessionId: string) => (await log.read(sessionId)).map((event) => event.type);

describe('turn deadline and reply size cap', () => {
  it('an endlessly streaming model ends the turn at the deadline with KERNEL_TURN_DEADLINE_EXCEEDED, nothing committed', async () => {
    const clock = new ManualClock();
    const sessionLog = new MemorySessionLog();
    const { harness } = await createTestHarness({ clock, sessionLog, turnDeadlineMs: 60_000, models: createModelRegistry(endlessModel(clock)) });
    const turn = rejectionOf(harness.runTurn({ sessionId: 's', text: 'tell me a story' }, { onReplyDelta: () => {} }));
    await clock.advance(59_000);
    await clock.advance(2_000);
    const error = (await turn) as KernelError;
    expect(error.code).toBe('KERNEL_TURN_DEADLINE_EXCEEDED');
    expect(error.details).toEqual({ turnDeadlineMs: 60_000 });
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-failed']);
    expect((await sessionLog.read('s'))[0]?.data).toMatchObject({ error: { code: 'KERNEL_TURN_DEADLINE_EXCEEDED' } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a model that never answers and ignores its signal cannot hold the turn past the deadline', async () => {
    const clock = new ManualClock();
    const deaf: ChatModel = { id: 'deaf', generate: () => new Promise(() => {}) };
    const { harness, sessionLog } = await createTestHarness({ clock, turnDeadlineMs: 30_000, models: createModelRegistry(deaf) });
    const turn = rejectionOf(harness.runTurn({ sessionId: 's', text: 'hello?' }));
    await clock.advance(30_000);
    expect(((await turn) as KernelError).code).toBe('KERNEL_TURN_DEADLINE_EXCEEDED');
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-failed']);
  });

  it('a 20 MB reply ends the turn with KERNEL_REPLY_TOO_LARGE (whole or streamed), nothing committed', async () => {
    for (const streamed of [false, true]) {
      const seen = { aborted: false };
      const { harness, sessionLog } = await createTestHarness({ models: createModelRegistry(hugeModel(20 * 1024 * 1024, seen)) });
      const error = (await rejectionOf(harness.runTurn({ sessionId: 's', text: 'more' }, streamed ? { onReplyDelta: () => {} } : {}))) as KernelError;
      expect(error.code).toBe('KERNEL_REPLY_TOO_LARGE');
      expect(error.details).toEqual({ maxReplyChars: 200_000 });
      expect(await types(sessionLog, 's')).toEqual(['kernel/turn-failed']);
      // The streamed call was stopped, not read to its end.
      expect(seen.aborted).toBe(streamed);
    }
  });

  it('turns running at once each end at their own deadline, and a turn that finishes in time is untouched', async () => {
    const clock = new ManualClock();
    const deaf: ChatModel = { id: 'deaf', generate: (request) => (request.meta.sessionId === 'quick' ? clock.sleep(5_000).then(() => ({ text: 'in time' })) : new Promise(() => {})) };
    const { harness, sessionLog } = await createTestHarness({ clock, turnDeadlineMs: 30_000, models: createModelRegistry(deaf) });
    const settledAt = new Map<string, number>();
    const track = (sessionId: string) =>
      harness.runTurn({ sessionId, text: 'hello?' }).then(
        () => settledAt.set(sessionId, clock.now()),
        () => settledAt.set(sessionId, clock.now()),
      );
    const start = clock.now();
    const early = track('early');
    await clock.advance(10_000);
    const late = track('late');
    const quick = track('quick');
    await clock.advance(20_000);
    expect(settledAt.get('early')).toBe(start + 30_000);
    expect(settledAt.has('late')).toBe(false);
    await clock.advance(10_000);
    await Promise.all([early, late, quick]);
    expect(settledAt.get('late')).toBe(start + 40_000);
    expect(settledAt.get('quick')).toBe(start + 15_000);
    expect(await types(sessionLog, 'early')).toEqual(['kernel/turn-failed']);
    expect(await types(sessionLog, 'late')).toEqual(['kernel/turn-failed']);
    expect(await types(sessionLog, 'quick')).toEqual(['kernel/turn-committed']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a turn within its limits leaves no timer behind; bad limits are refused at boot', async () => {
    const clock = new ManualClock();
    const { harness } = await createTestHarness({ clock, maxReplyChars: 50 });
    expect((await harness.runTurn({ sessionId: 's', text: 'hi' })).reply).toBe('echo: hi');
    expect(clock.pendingTimers).toBe(0);
    for (const bad of [{ turnDeadlineMs: 0 }, { maxReplyChars: 1.5 }]) {
      expect(((await rejectionOf(createTestHarness(bad))) as KernelError).code).toBe('KERNEL_HARNESS_INVALID');
    }
  });
});
