import { describe, expect, it } from 'vitest';
import { forkStoryForBranch, STORY_EVENTS, selectStoryWorkspace } from '../src/index.js';
import { storyHarness, storyModel } from './helpers.js';

// A branch of a story chat gets its own copy of the workspace: the parent's later turns are not in
// the copy's continuity record, the branch settles into the copy, and the copy's record follows the
// branch's chat controls on the turns it shares with the parent — the parent's workspace is never written.

const continuityFor = (tag: string) => JSON.stringify({ publicEvents: [`${tag}: Lia answered`], observations: [], proposals: [`${tag}: a proposal`] });
const BASE = 'HISTORY: the party met at the tavern.\n';
const block = (marker: string, tag: string) => `<!-- troupe:settle ${marker} -->\n- ${tag}: Lia answered\n`;

describe('forkStoryForBranch', () => {
  it('copies the workspace without the turns after the branch point; the branch plays, swipes and settles in the copy only', async () => {
    const model = storyModel({ 'story/continuity': ['T1', 'T2', 'T3', 'T2B', 'T4'].map(continuityFor) });
    const { harness, trees, sessionLog } = await storyHarness({ model });
    for (const turnId of ['t1', 't2', 't3']) await harness.runTurn({ sessionId: 's1', text: `play ${turnId}`, turnId });
    const parentHistory = BASE + block('story:t1', 'T1') + block('story:t2', 'T2') + block('story:t3', 'T3');
    expect((await trees.read('tale')).files['history.md']).toBe(parentHistory);

    // The branch point: right before t3's first event.
    const events = await sessionLog.read('s1');
    const cut = events[events.findIndex((event) => event.turnId === 't3') - 1];
    await sessionLog.branch('s1', cut?.id ?? '', 's2');
    const outcome = await forkStoryForBranch({ trees, sessionLog, parentSessionId: 's1', sessionId: 's2' });
    expect(outcome).toMatchObject({ status: 'forked', from: 'tale', droppedTurns: ['t3'] });
    const copy = outcome.status === 'forked' ? outcome.workspaceId : '';
    expect(copy).toMatch(/^tale-b-[0-9a-f]{6}$/);
    const copied = (await trees.read(copy)).files;
    expect(copied['history.md']).toBe(BASE + block('story:t1', 'T1') + block('story:t2', 'T2'));
    expect(copied['proposals.md']).not.toContain('T3');
    expect(JSON.parse(copied['manifest.json'] ?? '')).toMatchObject({ name: 'Tale (分支 branch)', revision: 1 });
    expect((await sessionLog.findLatest('s2', { type: STORY_EVENTS.workspaceSelected, key: 'selection' }))?.data).toEqual({ workspaceId: copy });

    // In the branch: regenerate t2, swipe back to its first reply and play on.
    await harness.runTurn({ sessionId: 's2', text: 'play t2', turnId: 't2', step: 1 });
    expect((await trees.read(copy)).files['history.md']).toBe(BASE + block('story:t1', 'T1') + block('story:t2:1', 'T2B'));
    await harness.selectStep({ sessionId: 's2', turnId: 't2', step: 0 });
    await harness.runTurn({ sessionId: 's2', text: 'play t4', turnId: 't4' });
    // The swipe brought t2's first block back in the copy: it was settled for "tale" before the fork.
    expect((await trees.read(copy)).files['history.md']).toBe(BASE + block('story:t1', 'T1') + block('story:t2', 'T2') + block('story:t4', 'T4'));
    // The parent's workspace is as the parent left it.
    expect((await trees.read('tale')).files['history.md']).toBe(parentHistory);
  });

  it('leaves a branch without a story alone, and refuses a taken id before selecting anything', async () => {
    const { harness, trees, sessionLog } = await storyHarness({ model: storyModel({ 'story/continuity': [continuityFor('T1')] }) });
    await harness.runTurn({ sessionId: 's1', text: 'hello', turnId: 't1' });
    const last = (await sessionLog.read('s1')).at(-1)?.id ?? '';
    await sessionLog.branch('s1', last, 's3');
    await selectStoryWorkspace(sessionLog, 's3', null);
    expect(await forkStoryForBranch({ trees, sessionLog, parentSessionId: 's1', sessionId: 's3' })).toEqual({ status: 'none' });

    await sessionLog.branch('s1', last, 's4');
    const before = (await sessionLog.read('s4')).length;
    await expect(forkStoryForBranch({ trees, sessionLog, parentSessionId: 's1', sessionId: 's4', workspaceId: 'tale' })).rejects.toMatchObject({ code: 'TREE_EXISTS' });
    expect((await sessionLog.read('s4')).length).toBe(before);
    // Copied whole: nothing after the branch point, so no block is left out.
    expect(await forkStoryForBranch({ trees, sessionLog, parentSessionId: 's1', sessionId: 's4', workspaceId: 'tale-copy' })).toEqual({ status: 'forked', from: 'tale', workspaceId: 'tale-copy', droppedTurns: [] });
    expect((await trees.read('tale-copy')).files['history.md']).toBe((await trees.read('tale')).files['history.md']);
  });
});
