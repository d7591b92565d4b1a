import { createHarness, type DuringCommitEntry, type NewSessionEvent, type SessionEvent } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { deferred, rejectionOf, testPlugin } from './helpers.js';

// A postReview handler registered with `duringCommit: true` starts as soon as the reply is final,
// while the commit is still being stored (a storage-fs commit waits for an fsync): a story's
// continuity model call overlaps that wait. It must make nothing lasting before `turn.stored`;
// a commit that fails aborts it and records no postReview outcome.

/** A session log that holds the commit's append until `release` (or fails it with `fail`). */
class HeldCommitLog extends MemorySessionLog {
  readonly gate = deferred<Error | undefined>();
  commitStarted = false;

  override async append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    if (events.some((event) => event.type === 'kernel/turn-committed')) {
      this.commitStarted = true;
      const failure = await this.gate.promise;
      if (failure) throw failure;
    }
    return super.append(sessionId, events);
  }
}

const types = async (log: MemorySessionLog, sessionId: string) => (await log.read(sessionId)).map((event) => event.type);

/** A plugin with one postReview handler registered `duringCommit`. */
const overlapPlugin = (handler: DuringCommitEntry['handler']) => testPlugin('overlap', (ctx) => ctx.hooks.postReview({ duringCommit: true, handler }));

describe('postReview handlers that start during the commit', () => {
  it('start before the commit is stored, see it stored through `turn.stored`, and their events follow it', async () => {
    const sessionLog = new HeldCommitLog();
    const order: string[] = [];
    let released = false;
    const during = deferred();
    const afterStarted = deferred();
    const plugin = testPlugin('overlap', (ctx) => {
      ctx.hooks.postReview({
        duringCommit: true,
        handler: async (turn, turnCtx) => {
          order.push(`during starts (commit released: ${String(released)})`);
          expect('commitEvent' in turn).toBe(false);
          during.resolve();
          turnCtx.events.append('overlap/early', { reply: turn.reply });
          const commit = await turn.stored;
          order.push(`during sees ${commit.type}`);
          // postReview handlers run side by side: the other one starts while this one still runs.
          await afterStarted.promise;
        },
      });
      ctx.hooks.postReview((turn) => {
        order.push(`after starts with ${turn.commitEvent.type}`);
        afterStarted.resolve();
      });
    });
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    const reported: string[] = [];
    const running = harness.runTurn(
      { sessionId: 's', text: 'hi' },
      {
        onEvent: (event) => {
          reported.push(event.type);
          if (event.type === 'kernel/turn-committed') order.push('committed reported');
        },
      },
    );
    await during.promise;
    // The handler runs while the commit's append is still held.
    expect(sessionLog.commitStarted).toBe(true);
    expect(await types(sessionLog, 's')).toEqual([]);
    released = true;
    sessionLog.gate.resolve(undefined);
    const result = await running;
    expect(order.slice(0, 2)).toEqual(['during starts (commit released: false)', 'committed reported']);
    // Both continue once the commit is stored (in either order).
    expect(order.slice(2).sort()).toEqual(['after starts with kernel/turn-committed', 'during sees kernel/turn-committed']);
    expect(result.postReviewErrors).toEqual([]);
    // Live progress hears of what the handler queued during the commit only after "saved".
    expect(reported).toEqual(['kernel/turn-committed', 'overlap/early', 'kernel/post-review-done']);
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-committed', 'overlap/early', 'kernel/post-review-done']);
    expect(result.events.map((event) => event.type)).toEqual(['kernel/turn-committed', 'overlap/early', 'kernel/post-review-done']);
    await harness.close();
  });

  it('a commit that fails aborts them, rejects `turn.stored`, and neither records nor reports their events', async () => {
    const sessionLog = new HeldCommitLog();
    const seen = deferred<{ aborted: boolean; stored: unknown }>();
    const started = deferred();
    const plugin = overlapPlugin(async (turn, turnCtx) => {
      started.resolve();
      turnCtx.events.append('overlap/early', {});
      const stored = await rejectionOf(turn.stored);
      seen.resolve({ aborted: turnCtx.signal.aborted, stored });
      turnCtx.events.append('overlap/too-late', {});
    });
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    const reported: string[] = [];
    const running = harness.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' }, { onEvent: (event) => reported.push(event.type) });
    await started.promise;
    const diskFull = new Error('ENOSPC: no space left on device');
    sessionLog.gate.resolve(diskFull);
    expect(await rejectionOf(running)).toBe(diskFull);
    expect(await seen.promise).toEqual({ aborted: true, stored: diskFull });
    expect(reported).not.toContain('overlap/early');
    // The failure is recorded as for any failed commit; nothing of the handler is.
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-failed']);
    await harness.close();
  });

  it('a commit that fails after close() cut them short is still recorded as a failure', async () => {
    const sessionLog = new HeldCommitLog();
    const started = deferred();
    const plugin = overlapPlugin(async (turn, turnCtx) => {
      started.resolve();
      await new Promise((_resolve, reject) => turnCtx.signal.addEventListener('abort', () => reject(turnCtx.signal.reason)));
      await turn.stored;
    });
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    const running = rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi', turnId: 't1' }));
    await started.promise;
    // The close grace ends while the commit is still held: the handler is interrupted.
    const closing = harness.close({ timeoutMs: 10 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    const diskFull = new Error('ENOSPC: no space left on device');
    sessionLog.gate.resolve(diskFull);
    expect(await running).toBe(diskFull);
    await closing;
    expect(await types(sessionLog, 's')).toEqual(['kernel/turn-failed']);
  });

  it('a turn finished later from the log hands them the stored commit at once', async () => {
    const sessionLog = new MemorySessionLog();
    const crashed = await createHarness({ model: new ScriptedChatModel(), sessionLog });
    await crashed.runTurn({ sessionId: 's', text: 'first', turnId: 't1' });
    await crashed.close();
    const stored: string[] = [];
    const plugin = overlapPlugin(async (turn) => {
      stored.push(`${turn.turnId}${turn.resumed ? ' (resumed)' : ''}: ${(await turn.stored).type}`);
    });
    const harness = await createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog });
    expect(await harness.finishCommittedTurn('s')).toBe(true);
    expect(stored).toEqual(['t1 (resumed): kernel/turn-committed']);
    await harness.close();
  });

  it('is an option of postReview only', async () => {
    const plugin = testPlugin('overlap', (ctx) => {
      // @ts-expect-error: `duringCommit` exists for postReview handlers only
      ctx.hooks.review({ duringCommit: true, handler: () => undefined });
    });
    expect(await rejectionOf(createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() }))).toMatchObject({
      code: 'KERNEL_PLUGIN_INVALID',
      message: expect.stringContaining('duringCommit'),
    });
  });
});
