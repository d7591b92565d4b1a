import { createModelRegistry } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { draftKey } from '../src/events.js';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { draftProbe, seedWorkspace, storyHarness, storyModel } from './helpers.js';

describe('the story turn pipeline', () => {
  it('runs the stages in fixed order and hands the edited draft to the actor', async () => {
    const { harness, model, drafts } = await storyHarness();
    const result = await harness.runTurn({ sessionId: 's1', text: 'I open the tavern door', turnId: 't1' });
    const stages = model.calls.map((c) => c.meta.stage);
    expect(stages).toEqual([
      'story/research',
      'story/character',
      'story/character',
      'story/director',
      'story/section',
      'story/section',
      'story/editor',
      'actor',
      'story/continuity',
    ]);
    expect(drafts[0]).toEqual({ text: "## Scene\n\nDraft of Scene.\n\n## Lia's view\n\nDraft of Lia's view.", workspaceId: 'tale', revision: 7 });
    const prepared = result.events.find((e) => e.type === STORY_EVENTS.draftPrepared);
    expect(prepared?.key).toBe(draftKey('t1', 0, 'tale', 7));
    expect(prepared?.ignorable).toBe(true);
    const requests = result.events.filter((e) => e.type === STORY_EVENTS.stageRequest);
    const results = result.events.filter((e) => e.type === STORY_EVENTS.stageResult);
    expect(requests).toHaveLength(8);
    expect(results).toHaveLength(8);
    expect((requests[0]?.data as { messages: unknown[] } | undefined)?.messages).toEqual(model.calls[0]?.messages);
    expect(result.events.every((e) => e.type === 'kernel/turn-committed' || e.ignorable)).toBe(true);
  });

  it('keeps a single prose section as natural text without a heading', async () => {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    const ws = await workspaces.read('tale');
    await workspaces.updateSection('tale', ws.revision, 'lia-view', { enabled: false });
    const drafts: unknown[] = [];
    const test = await createTestHarness({ trees, model: storyModel(), plugins: [storyPlugin(), draftProbe(drafts as never)] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    await test.harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't1' });
    expect((drafts[0] as { text: string }).text).toBe('Draft of Scene.');
  });

  it('uses the workspace provider/model for stages while the actor keeps the session model', async () => {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    const ws = await workspaces.read('tale');
    await workspaces.updateManifest('tale', ws.revision, { ...ws.manifest, pipeline: { ...ws.manifest.pipeline, provider: 'story-llm', model: 'big' } });
    const sessionModel = storyModel();
    const storyOnly = storyModel();
    const test = await createTestHarness({ trees, models: createModelRegistry(sessionModel, { 'story-llm/big': storyOnly }), plugins: [storyPlugin()] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    await test.harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't1' });
    expect(sessionModel.calls.map((c) => c.meta.stage)).toEqual(['actor']);
    expect(storyOnly.calls.every((c) => c.meta.stage.startsWith('story/'))).toBe(true);
    expect(storyOnly.callsFor('story/continuity')).toHaveLength(1);
  });

  it('sends every structured stage a JSON schema and the turn identity in meta', async () => {
    const { harness, model } = await storyHarness();
    await harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't9' });
    for (const stage of ['story/research', 'story/character', 'story/director', 'story/continuity']) {
      const call = model.callsFor(stage)[0];
      expect(call?.json).toMatchObject({ schema: { type: 'object' } });
      expect(call?.meta).toEqual({ stage, sessionId: 's1', turnId: 't9' });
    }
    expect(model.callsFor('story/section')[0]?.json).toBeUndefined();
  });

  it('does nothing for a session without a selected workspace', async () => {
    const { harness, model, drafts } = await storyHarness({ select: false });
    const result = await harness.runTurn({ sessionId: 's1', text: 'hi', turnId: 't1' });
    expect(model.calls.map((c) => c.meta.stage)).toEqual(['actor']);
    expect(drafts).toEqual([undefined]);
    expect(result.events.map((e) => e.type)).toEqual(['kernel/turn-committed', 'kernel/post-review-done']);
  });
});
