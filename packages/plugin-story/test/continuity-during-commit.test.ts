import { type ChatModel, createHarness, type NewSessionEvent, type SessionEvent } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { seedWorkspace, storyModel } from './helpers.js';

// The continuity stage's model call starts while the turn's commit is still being stored (on a
// durable store that is an fsync of the session log), so the turn does not wait for the sync and
// then for the model one after the other. The workspace is written only once the commit is
// stored: a commit that fails, or a crash before it is stored, leaves the workspace as it was.

/** A session log that holds the commit's append until the test releases it (or fails it). */
class HeldCommitLog extends MemorySessionLog {
  #release!: (failure: Error | undefined) => void;
  readonly #gate = new Promise<Error | undefined>((resolve) => (this.#release = resolve));
  commitHeld = false;

  release(failure?: Error): void {
    this.#release(failure);
  }

  override async append(sessionId: string, events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    if (events.some((event) => event.type === 'kernel/turn-committed')) {
      this.commitHeld = true;
      const failure = await this.#gate;
      this.commitHeld = false;
      if (failure) throw failure;
    }
    return super.append(sessionId, events);
  }
}

/** The story model, telling when the continuity call starts and whether the commit was held then. */
function watchedContinuity(log: HeldCommitLog): { model: ChatModel; started: Promise<boolean> } {
  const inner = storyModel();
  let markStarted!: (commitHeld: boolean) => void;
  const started = new Promise<boolean>((resolve) => (markStarted = resolve));
  const model: ChatModel = {
    id: inner.id,
    generate: (request) => {
      if (request.meta?.stage === 'story/continuity') markStarted(log.commitHeld);
      return inner.generate(request);
    },
  };
  return { model, started };
}

/** A seeded workspace selected for `s1` on a held-commit log, and a story harness over them. */
async function heldStory() {
  const trees = new MemoryTreeStore();
  const sessionLog = new HeldCommitLog();
  const workspaces = await seedWorkspace(trees);
  await selectStoryWorkspace(sessionLog, 's1', 'tale');
  const before = await workspaces.read('tale');
  const { model, started } = watchedContinuity(sessionLog);
  const harness = await createHarness({ trees, sessionLog, model, plugins: [storyPlugin()] });
  return { sessionLog, workspaces, before, started, harness };
}

describe('continuity during the commit', () => {
  it('its model call starts while the commit is stored; the workspace is settled only after', async () => {
    const { sessionLog, workspaces, before, started, harness } = await heldStory();
    const turn = harness.runTurn({ sessionId: 's1', text: 'I open the tavern door', turnId: 't1' });
    expect(await started).toBe(true);
    // Continuity has answered by now (the scripted model answers at once): still nothing written.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await workspaces.read('tale')).revision).toBe(before.revision);
    sessionLog.release();
    const result = await turn;
    expect(result.postReviewErrors).toEqual([]);
    const after = await workspaces.read('tale');
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(after.files['history.md']).toContain('<!-- troupe:settle story:t1 -->');
    const types = (await sessionLog.read('s1')).map((event) => event.type);
    // The continuity stage's request and result are logged after the commit, then the settlement.
    const committedAt = types.indexOf('kernel/turn-committed');
    expect(committedAt).toBeGreaterThan(-1);
    expect(types.indexOf(STORY_EVENTS.settled)).toBeGreaterThan(committedAt);
    expect(types.at(-1)).toBe('kernel/post-review-done');
    await harness.close();
  });

  it('a commit that fails leaves the workspace untouched and logs no settlement', async () => {
    const { sessionLog, workspaces, before, started, harness } = await heldStory();
    const turn = harness.runTurn({ sessionId: 's1', text: 'I open the tavern door', turnId: 't1' }).catch((error: unknown) => error);
    expect(await started).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const diskFull = new Error('ENOSPC: no space left on device');
    sessionLog.release(diskFull);
    expect(await turn).toBe(diskFull);
    await harness.close();
    const after = await workspaces.read('tale');
    expect(after.revision).toBe(before.revision);
    expect(after.files).toEqual(before.files);
    const types = (await sessionLog.read('s1')).map((event) => event.type);
    expect(types).not.toContain(STORY_EVENTS.settled);
    expect(types).not.toContain('kernel/post-review-done');
    expect(types.at(-1)).toBe('kernel/turn-failed');
  });
});
