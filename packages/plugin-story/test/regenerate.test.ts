import { describe, expect, it } from 'vitest';
import { STORY_EVENTS } from '../src/index.js';
import { storyHarness, storyModel } from './helpers.js';

/** Continuity answers that say which reply they saw, per step. */
const continuityFor = (tag: string) =>
  JSON.stringify({ publicEvents: [`${tag}: Lia answered`], observations: [{ characterId: 'lia', facts: [`${tag}: Lia saw it`] }], proposals: [`${tag}: a proposal`] });

describe('a regenerated step replaces the earlier step in the continuity record', () => {
  it('steps 0 and 1 of a turn → history.md holds step 1\'s events only; a player edit elsewhere is kept', async () => {
    const model = storyModel({ actor: ['first reply', 'second reply'], 'story/continuity': [continuityFor('STEP0'), continuityFor('STEP1')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    const afterStep0 = (await trees.read('tale')).files;
    expect(afterStep0['history.md']).toContain('STEP0: Lia answered');
    // The player edits history.md between the two attempts.
    const ws = await workspaces.read('tale');
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': `${afterStep0['history.md']}PLAYER NOTE\n` });

    const step1 = await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
    expect(model.callsFor('story/continuity')[1]?.messages[1]?.content).toContain('second reply');
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe('HISTORY: the party met at the tavern.\nPLAYER NOTE\n<!-- troupe:settle story:t1:1 -->\n- STEP1: Lia answered\n');
    for (const path of ['characters/lia/knowledge.md', 'proposals.md']) {
      expect(files[path]).toContain('STEP1');
      expect(files[path]).not.toContain('STEP0');
    }
    expect(step1.events.find((e) => e.type === STORY_EVENTS.settled)).toMatchObject({ key: 'story:t1:1', data: { applied: true, replaced: ['story:t1'] } });

    // Retrying step 1 changes nothing: no model call, no second block.
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
    expect(model.callsFor('story/continuity')).toHaveLength(2);
    expect((await trees.read('tale')).files['history.md']).toBe(files['history.md']);
  });

  it('step 2 replaces step 1, which had replaced step 0', async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('S0'), continuityFor('S1'), continuityFor('S2')] });
    const { harness, trees } = await storyHarness({ model });
    for (const step of [0, 1, 2]) await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step });
    const history = (await trees.read('tale')).files['history.md'] ?? '';
    expect(history).toContain('S2: Lia answered');
    expect(history).not.toMatch(/S0:|S1:/);
    expect(history.match(/troupe:settle/g)).toHaveLength(1);
  });

  it("a player's save that drops the file's last line break still lets the regenerated step replace the earlier one", async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('S0'), continuityFor('S1')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    const ws = await workspaces.read('tale');
    // An editor that saves without a final newline (many do).
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': (ws.files['history.md'] ?? '').replace(/\n$/, '') });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
    const history = (await trees.read('tale')).files['history.md'] ?? '';
    expect(history).toBe('HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1:1 -->\n- S1: Lia answered\n');
  });

  it('a history.md checked out with Windows line endings (CRLF) still lets the regenerated step replace the earlier one, and keeps the rest of the file as it is', async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('S0'), continuityFor('S1')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    const ws = await workspaces.read('tale');
    // Git for Windows (core.autocrlf) checks the workspace out with CRLF line endings.
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': (ws.files['history.md'] ?? '').replace(/\n/g, '\r\n') });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
    const history = (await trees.read('tale')).files['history.md'] ?? '';
    expect(history).toBe('HISTORY: the party met at the tavern.\r\n<!-- troupe:settle story:t1:1 -->\n- S1: Lia answered\n');
  });
});
