import { contextKeys, definePlugin } from '@troupe/kernel';
import { describe, expect, it } from 'vitest';
import { requestText, storyHarness, storyModel } from './helpers.js';

// Stands in for @troupe/plugin-lorebook: the kernel key is the only contract between them.
const lore = definePlugin({
  name: 'world-info-probe',
  version: '1.0.0',
  setup(ctx) {
    ctx.hooks.preActor({
      order: 'pre',
      handler: (_input, turn) =>
        turn.set(contextKeys.worldInfo, {
          entries: [{ id: 'town.7', book: 'town', uid: '7', comment: 'Tavern', content: 'WORLD-INFO-TAVERN: the ale is brewed upstairs.', position: 'before', order: 100, depth: 4, role: 'system' }],
        }),
    });
  },
});

describe('world info in the story pipeline (public material)', () => {
  it('the research worker reads activated world info; character workers, director, sections and editor never see it', async () => {
    const model = storyModel();
    const { harness } = await storyHarness({ model, before: [lore] });
    await harness.runTurn({ sessionId: 's1', text: 'PLAYER-INPUT what about the ale?' });
    const stage = (name: string) => model.calls.filter((call) => call.meta.stage === name);
    const research = requestText(stage('story/research')[0]!);
    expect(research).toContain('(world-info: town.7) WORLD-INFO-TAVERN: the ale is brewed upstairs.');
    for (const name of ['story/character', 'story/director', 'story/section', 'story/editor']) {
      const calls = stage(name);
      expect(calls.length, name).toBeGreaterThan(0);
      for (const call of calls) expect(requestText(call), name).not.toContain('WORLD-INFO-TAVERN');
    }
    await harness.close();
  });
});
