import { createModelRegistry } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { offlineModel } from '@troupe/model-offline';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { draftProbe, seedWorkspace } from './helpers.js';

describe('with the offline model (@troupe/model-offline)', () => {
  it('every stage answer fits its schema: a full turn with no degradation', async () => {
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const drafts: unknown[] = [];
    const test = await createTestHarness({ trees, models: createModelRegistry(offlineModel()), plugins: [storyPlugin(), draftProbe(drafts as never)] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    const result = await test.harness.runTurn({ sessionId: 's1', text: '我推开酒馆的门 I open the tavern door', turnId: 't1' });
    expect(result.events.filter((e) => e.type === STORY_EVENTS.degraded).map((e) => e.data)).toEqual([]);
    expect(drafts[0]).toMatchObject({ workspaceId: 'tale', revision: 7 });
    expect(result.events.find((e) => e.type === STORY_EVENTS.settled)?.data).toMatchObject({ mode: 'full' });
  });
});
