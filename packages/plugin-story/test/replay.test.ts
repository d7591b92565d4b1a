import { createTestHarness } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { draftKey } from '../src/events.js';
import { STORY_EVENTS, storyPlugin } from '../src/index.js';
import { draftProbe, storyHarness, storyModel } from './helpers.js';

const storyCalls = (model: { calls: { meta: { stage: string } }[] }) => model.calls.filter((c) => c.meta.stage.startsWith('story/') && c.meta.stage !== 'story/continuity');

// Fails the actor once, so the same turn is retried after its prepared draft was recorded.
function failActorOnce() {
  let failed = false;
  return (req: { messages: readonly { content: string }[] }) => {
    if (!failed) {
      failed = true;
      throw new Error('actor timeout');
    }
    return `reply to ${req.messages.at(-1)?.content}`;
  };
}

describe('prepared draft replay from the session log', () => {
  it('a retried turn (same turn, step, workspace, revision) replays the draft with no stage model call', async () => {
    const model = storyModel({ actor: [failActorOnce()] });
    const { harness, drafts } = await storyHarness({ model });
    await expect(harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' })).rejects.toMatchObject({ code: 'KERNEL_MODEL_FAILED' });
    const prepCalls = storyCalls(model).length;
    expect(prepCalls).toBe(7);
    const retry = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(storyCalls(model).length).toBe(prepCalls);
    expect(drafts[1]).toEqual(drafts[0]);
    expect(retry.events.find((e) => e.type === STORY_EVENTS.draftReplayed)?.data).toMatchObject({ key: draftKey('t1', 0, 'tale', 7) });
  });

  it('replays after export/import and in a branch (no process cache involved)', async () => {
    const first = await storyHarness();
    await first.harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    const exported = await first.sessionLog.export('s1');
    // A brand-new harness and plugin instance over the same workspace store and an imported log.
    const model = storyModel();
    const drafts: unknown[] = [];
    const second = await createTestHarness({ trees: first.trees, model, plugins: [storyPlugin(), draftProbe(drafts as never)] });
    await second.sessionLog.import('s2', exported);
    // The first turn's settlement moved the workspace on; put it back at the draft's revision by key.
    const prepared = (await second.sessionLog.read('s2')).find((e) => e.type === STORY_EVENTS.draftPrepared)!;
    const revisionNow = (await first.trees.read('tale')).revision;
    expect(revisionNow).toBe(8);
    // Replay needs the same revision: a revision-8 key was never prepared, so it is NOT replayed.
    await second.harness.runTurn({ sessionId: 's2', text: 'go', turnId: 't1' });
    expect(storyCalls(model).length).toBe(7);
    // Branch at the prepared draft and run the same turn against a store still at revision 7.
    const stillSeven = await storyHarness();
    const branchModel = storyModel();
    const branchDrafts: unknown[] = [];
    const third = await createTestHarness({ trees: stillSeven.trees, model: branchModel, plugins: [storyPlugin(), draftProbe(branchDrafts as never)] });
    await third.sessionLog.import('s3', exported);
    await third.sessionLog.branch('s3', prepared.id, 's4');
    await third.harness.runTurn({ sessionId: 's4', text: 'go', turnId: 't1' });
    expect(storyCalls(branchModel)).toHaveLength(0);
    expect(branchDrafts[0]).toEqual({ text: (prepared.data as { text: string }).text, workspaceId: 'tale', revision: 7 });
  });

  it('any other key is never replayed: another turn, another step, or a new revision prepares afresh', async () => {
    const model = storyModel({ actor: [failActorOnce()] });
    const { harness, workspaces } = await storyHarness({ model });
    await expect(harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' })).rejects.toThrow();
    expect(storyCalls(model)).toHaveLength(7);
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't2' });
    expect(storyCalls(model)).toHaveLength(14);
    const ws = await workspaces.read('tale');
    await workspaces.writeFiles('tale', ws.revision, { 'outline.md': 'changed' });
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't2' });
    expect(storyCalls(model)).toHaveLength(21);
  });

  it('a later step of a turn prepares its own draft (replay is keyed by step)', async () => {
    const model = storyModel();
    const { harness, drafts } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(storyCalls(model)).toHaveLength(7);
    const result = await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1', step: 1 });
    expect(storyCalls(model)).toHaveLength(14);
    expect(drafts[1]).toMatchObject({ workspaceId: 'tale' });
    expect(result.events.find((e) => e.type === STORY_EVENTS.draftPrepared)?.key).toMatch(/^t1:1:tale:/);
    expect(result.events.some((e) => e.type === STORY_EVENTS.skipped)).toBe(false);
  });

  it('a malformed recorded draft is ignored and the pipeline runs', async () => {
    const model = storyModel();
    const { harness, sessionLog } = await storyHarness({ model });
    await sessionLog.append('s1', [
      { turnId: 't1', step: 0, type: STORY_EVENTS.draftPrepared, ignorable: true, at: new Date().toISOString(), key: draftKey('t1', 0, 'tale', 7), data: { text: 5 } },
    ]);
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    expect(storyCalls(model)).toHaveLength(7);
  });
});
