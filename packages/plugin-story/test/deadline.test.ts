import type { SessionEvent } from '@troupe/kernel';
import { createTestHarness, ManualClock, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PREPARATION_DEADLINE_MS, DEFAULT_STAGE_TIMEOUT_MS, STORY_EVENTS, selectStoryWorkspace, storyPlugin } from '../src/index.js';
import { draftProbe, seedWorkspace, storyModel } from './helpers.js';

// A model server that accepts the call and never answers, and ignores the abort signal too.
const never = () => new Promise<string>(() => {});
// The preparation's events (the continuity stage runs after the reply, outside the deadline).
const stageData = (events: readonly SessionEvent[], type: string) =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.data as { stage: string; item?: string; ok?: boolean; error?: { code: string }; deadlineMs?: number })
    .filter((d) => d.stage !== 'story/continuity');

async function hangingStoryHarness(override: Record<string, unknown> = {}) {
  const clock = new ManualClock();
  const trees = new MemoryTreeStore();
  const workspaces = await seedWorkspace(trees);
  if (Object.keys(override).length > 0) {
    const ws = await workspaces.read('tale');
    await workspaces.updateManifest('tale', ws.revision, { ...ws.manifest, pipeline: { ...ws.manifest.pipeline, ...override } });
  }
  const drafts: unknown[] = [];
  const model = storyModel({
    'story/research': [never],
    'story/character': [never],
    'story/director': [never],
    'story/section': [never],
    'story/editor': [never],
  });
  const test = await createTestHarness({ trees, model, clock, plugins: [storyPlugin(), draftProbe(drafts as never)] });
  await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
  return { ...test, clock, drafts };
}

/** Moves virtual time in 1 s steps until `promise` settles; returns the virtual time it took. */
async function settleInVirtualTime(clock: ManualClock, promise: Promise<unknown>, limitMs: number): Promise<number> {
  const start = clock.now();
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled && clock.now() - start < limitMs) await clock.advance(1_000);
  expect(settled).toBe(true);
  return clock.now() - start;
}

describe('the story preparation deadline', () => {
  it('a model that never answers → the reply comes through the plain flow at the deadline; every request has a result', async () => {
    const { harness, clock, drafts, model } = await hangingStoryHarness();
    const turn = harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    const took = await settleInVirtualTime(clock, turn, DEFAULT_PREPARATION_DEADLINE_MS * 2);
    expect(took).toBeLessThanOrEqual(DEFAULT_PREPARATION_DEADLINE_MS + 1_000);
    const result = await turn;
    expect(result.reply).toBe('echo: go');
    expect(drafts).toEqual([undefined]);
    expect(model.callsFor('actor')).toHaveLength(1);

    const requests = stageData(result.events, STORY_EVENTS.stageRequest);
    const results = stageData(result.events, STORY_EVENTS.stageResult);
    expect(requests.length).toBeGreaterThan(0);
    expect(results.map((r) => [r.stage, r.item])).toEqual(requests.map((r) => [r.stage, r.item]));
    expect(results.every((r) => r.ok === false)).toBe(true);
    // Stages are cut by their own timeout first (research at 90 s, characters at 180 s), the director by the deadline.
    expect(results[0]).toMatchObject({ stage: 'story/research', error: { code: 'STORY_STAGE_TIMEOUT' } });
    expect(results.at(-1)).toMatchObject({ stage: 'story/director', error: { code: 'STORY_DEADLINE_EXCEEDED' } });
    expect(model.callsFor('story/section')).toHaveLength(0);

    const degraded = stageData(result.events, STORY_EVENTS.degraded);
    expect(degraded.at(-1)).toMatchObject({ stage: 'preparation', fallback: 'plain-character-flow', deadlineMs: DEFAULT_PREPARATION_DEADLINE_MS, error: { code: 'STORY_DEADLINE_EXCEEDED' } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a deadline shorter than one stage cuts the first call and names the deadline', async () => {
    const { harness, clock, model } = await hangingStoryHarness({ deadlineMs: 30_000, stageTimeoutMs: DEFAULT_STAGE_TIMEOUT_MS });
    const turn = harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(await settleInVirtualTime(clock, turn, 120_000)).toBeLessThanOrEqual(31_000);
    const { events, reply } = await turn;
    expect(reply).toBe('echo: go');
    expect(stageData(events, STORY_EVENTS.stageResult)).toEqual([
      { stage: 'story/research', ok: false, error: { code: 'STORY_DEADLINE_EXCEEDED', message: expect.stringContaining('30000 ms') } },
    ]);
    expect(model.callsFor('story/character')).toHaveLength(0);
    expect(stageData(events, STORY_EVENTS.degraded).at(-1)).toMatchObject({ stage: 'preparation', deadlineMs: 30_000, error: { code: 'STORY_DEADLINE_EXCEEDED' } });
  });

  it('cancelling while a stage hangs rejects with the abort reason and records no result', async () => {
    const { harness, clock, sessionLog } = await hangingStoryHarness();
    const controller = new AbortController();
    const reason = new Error('player cancelled');
    const before = (await sessionLog.read('s1')).length;
    const turn = harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' }, { signal: controller.signal });
    await clock.advance(10_000);
    controller.abort(reason);
    await expect(turn).rejects.toBe(reason);
    expect(await sessionLog.read('s1')).toHaveLength(before);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a hanging stage's own request signal aborts: a TimeoutError at its limit, the player's reason on cancel", async () => {
    const clock = new ManualClock();
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const signals: AbortSignal[] = [];
    const hangOn = (request: { signal: AbortSignal }) => {
      signals.push(request.signal);
      return new Promise<string>(() => {});
    };
    const model = storyModel({ 'story/research': [hangOn], 'story/character': [hangOn] });
    const test = await createTestHarness({ trees, model, clock, plugins: [storyPlugin()] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    const controller = new AbortController();
    const reason = new Error('player cancelled');
    const turn = test.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' }, { signal: controller.signal });
    const rejected = turn.then(
      () => undefined,
      (error: unknown) => error,
    );
    // Research hangs until its stage timeout; then the characters start and hang too.
    while (signals.length < 2) await clock.advance(1_000);
    expect((signals[0] as AbortSignal).reason).toMatchObject({ name: 'TimeoutError' });
    expect(signals.slice(1).every((signal) => !signal.aborted)).toBe(true);
    controller.abort(reason);
    expect(await rejected).toBe(reason);
    expect(signals.slice(1).map((signal) => signal.reason)).toEqual(signals.slice(1).map(() => reason));
    expect(clock.pendingTimers).toBe(0);
  });
});
