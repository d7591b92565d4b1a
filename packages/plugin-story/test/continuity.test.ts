import { definePlugin } from '@troupe/kernel';
import { createTestHarness, MemoryTreeStore } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { seedWorkspace, storyHarness, storyModel } from './helpers.js';

describe('continuity settlement after the turn', () => {
  it('settles public events, per-character observations and proposals from the visible reply', async () => {
    const { harness, trees, model } = await storyHarness({ model: storyModel({ actor: ['Lia opens the door for the traveller.'] }) });
    const result = await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe('HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1 -->\n- Lia greeted the traveller\n');
    expect(files['characters/lia/knowledge.md']).toContain('- A traveller arrived');
    expect(files['characters/bram/knowledge.md']).toBe('BRAM-SECRET he owes the guild');
    expect(files['proposals.md']).toContain('- Foreshadow the guild debt');
    expect(files['outline.md']).toBe('OUTLINE: the heist');
    expect(files['foreshadowing.md']).toBe('FORESHADOW: the locket');
    expect(model.callsFor('story/continuity')[0]?.messages[1]?.content).toContain('Lia opens the door for the traveller.');
    const settled = result.events.find((e) => e.type === STORY_EVENTS.settled);
    expect(settled).toMatchObject({ key: 'story:t1', ignorable: true, data: { applied: true, mode: 'full', marker: 'story:t1' } });
  });

  it('reads the reply after review (the final visible text), not the actor draft', async () => {
    const trees = new MemoryTreeStore();
    await seedWorkspace(trees);
    const model = storyModel({ actor: ['RAW-ACTOR'] });
    const reviewer = definePlugin({ name: 'reviewer', version: '0.1.0', setup: (ctx) => ctx.hooks.review(() => ({ text: 'REVIEWED-REPLY' })) });
    const test = await createTestHarness({ trees, model, plugins: [storyPlugin(), reviewer] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    await test.harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    const text = model.callsFor('story/continuity')[0]?.messages[1]?.content ?? '';
    expect(text).toContain('REVIEWED-REPLY');
    expect(text).not.toContain('RAW-ACTOR');
  });

  it('unparseable continuity output → only the visible reply goes to history, nothing is guessed', async () => {
    const { harness, trees } = await storyHarness({ model: storyModel({ actor: ['THE VISIBLE REPLY'], 'story/continuity': ['I think Lia learned things'] }) });
    const before = (await trees.read('tale')).files;
    const result = await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe(`${before['history.md']}<!-- troupe:settle story:t1 -->\nTHE VISIBLE REPLY\n`);
    for (const path of ['characters/lia/knowledge.md', 'characters/bram/knowledge.md', 'proposals.md', 'outline.md', 'foreshadowing.md']) expect(files[path]).toBe(before[path]);
    expect(result.events.find((e) => e.type === STORY_EVENTS.degraded)?.data).toMatchObject({ stage: 'story/continuity', fallback: 'reply-only', error: { code: 'STORY_STAGE_OUTPUT_INVALID' } });
    expect(result.events.find((e) => e.type === STORY_EVENTS.settled)?.data).toMatchObject({ mode: 'reply-only', applied: true });
  });

  it('a player edit to history.md between preparation and continuity survives, and the settlement appears once', async () => {
    const trees = new MemoryTreeStore();
    const workspaces = await seedWorkspace(trees);
    // The player saves an edit while the actor is writing (after preparation, before postReview).
    const model = storyModel({
      actor: [
        async () => {
          const ws = await workspaces.read('tale');
          await workspaces.writeFiles('tale', ws.revision, { 'history.md': 'PLAYER REWROTE HISTORY\n' });
          return 'reply';
        },
      ],
    });
    const test = await createTestHarness({ trees, model, plugins: [storyPlugin()] });
    await selectStoryWorkspace(test.sessionLog, 's1', 'tale');
    await test.harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    const history = (await trees.read('tale')).files['history.md'] ?? '';
    expect(history).toBe('PLAYER REWROTE HISTORY\n<!-- troupe:settle story:t1 -->\n- Lia greeted the traveller\n');
  });

  it('retrying the same turn never duplicates the settlement (event or store marker)', async () => {
    const { harness, trees, model, sessionLog } = await storyHarness();
    await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    const once = (await trees.read('tale')).files;
    await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    expect((await trees.read('tale')).files).toEqual(once);
    expect(model.callsFor('story/continuity')).toHaveLength(1);
    // Even without the session event (e.g. the process died before it was written), the store's
    // marker keeps the settlement single, even when the model now answers differently.
    const fresh = storyModel({ 'story/continuity': [JSON.stringify({ publicEvents: ['something else'], observations: [], proposals: [] })] });
    const other = await createTestHarness({ trees, model: fresh, plugins: [storyPlugin()] });
    await other.sessionLog.import('s1', (await sessionLog.export('s1')).split('\n').filter((l) => !l.includes(STORY_EVENTS.settled)).join('\n'));
    const result = await other.harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    expect(fresh.callsFor('story/continuity')).toHaveLength(1);
    expect((await trees.read('tale')).files).toEqual(once);
    expect(result.events.find((e) => e.type === STORY_EVENTS.settled)?.data).toMatchObject({ applied: false });
    expect((once['history.md'] ?? '').match(/story:t1/g)).toHaveLength(1);
  });

  it('observations for unknown or disabled characters are dropped', async () => {
    const model = storyModel({
      'story/continuity': [JSON.stringify({ publicEvents: [], observations: [{ characterId: 'ghost', facts: ['boo'] }, { characterId: 'bram', facts: ['saw Lia'] }], proposals: [] })],
    });
    const { harness, trees, workspaces } = await storyHarness({ model });
    const ws = await workspaces.read('tale');
    await workspaces.updateManifest('tale', ws.revision, { ...ws.manifest, characters: ws.manifest.characters.map((c) => (c.id === 'bram' ? { ...c, enabled: false } : c)) });
    await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    const files = (await trees.read('tale')).files;
    expect(files['characters/bram/knowledge.md']).toBe('BRAM-SECRET he owes the guild');
    expect(Object.keys(files).some((p) => p.includes('ghost'))).toBe(false);
  });
});
