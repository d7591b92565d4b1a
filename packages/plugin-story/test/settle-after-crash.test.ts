import { type ChatModel, createHarness } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { seedWorkspace, storyModel } from './helpers.js';

// A turn committed while its continuity write-back was cut off (the server stopped) is settled
// later from the session log, into the workspace recorded with its commit, exactly once.

/** The story model, except that continuity calls wait until they are cancelled. */
function stuckContinuity(): { model: ChatModel; started: Promise<void> } {
  const inner = storyModel();
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const model: ChatModel = {
    id: inner.id,
    generate: (request) => {
      if (request.meta?.stage !== 'story/continuity') return inner.generate(request);
      markStarted();
      return new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
    },
  };
  return { model, started };
}

describe('settling a committed story turn later', () => {
  it('a turn cut off by close() is settled by the next harness exactly once', async () => {
    const trees = new MemoryTreeStore();
    const sessionLog = new MemorySessionLog();
    const workspaces = await seedWorkspace(trees);
    await selectStoryWorkspace(sessionLog, 's1', 'tale');
    const before = (await workspaces.read('tale')).files['history.md'];

    const stuck = stuckContinuity();
    const first = await createHarness({ trees, sessionLog, model: stuck.model, plugins: [storyPlugin()] });
    const turn = first.runTurn({ sessionId: 's1', text: 'I open the tavern door', turnId: 't1' }).catch((error: unknown) => error);
    await stuck.started;
    await first.close({ timeoutMs: 20 });
    expect(await turn).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
    expect((await workspaces.read('tale')).files['history.md']).toBe(before);

    const second = await createHarness({ trees, sessionLog, model: storyModel(), plugins: [storyPlugin()] });
    expect(await second.finishCommittedTurn('s1')).toBe(true);
    expect(await second.finishCommittedTurn('s1')).toBe(false);
    const history = (await workspaces.read('tale')).files['history.md'] ?? '';
    expect(history.split('<!-- troupe:settle story:t1 -->').length - 1).toBe(1);
    const settled = (await sessionLog.read('s1')).filter((event) => event.type === STORY_EVENTS.settled);
    expect(settled.map((event) => event.key)).toEqual(['story:t1']);
    await second.close();
  });
});
