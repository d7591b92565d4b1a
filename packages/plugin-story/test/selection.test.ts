import { describe, expect, it } from 'vitest';
import { clearStoryWorkspace, readStoryWorkspaceSelection, selectStoryWorkspace } from '../src/index.js';
import { storyHarness } from './helpers.js';

describe('session selection of a workspace', () => {
  it('enabling writes the selection into the session; clearing brings back the plain flow and keeps the files', async () => {
    const { harness, sessionLog, trees, model, drafts } = await storyHarness({ select: false });
    await selectStoryWorkspace(sessionLog, 's1', 'tale');
    expect(await readStoryWorkspaceSelection((key) => sessionLog.findLatest('s1', key))).toBe('tale');
    await harness.runTurn({ sessionId: 's1', text: 'one', turnId: 't1' });
    expect(drafts[0]?.workspaceId).toBe('tale');
    const filesBefore = (await trees.read('tale')).files;
    await clearStoryWorkspace(sessionLog, 's1');
    expect(await readStoryWorkspaceSelection((key) => sessionLog.findLatest('s1', key))).toBeUndefined();
    const callsBefore = model.calls.length;
    await harness.runTurn({ sessionId: 's1', text: 'two', turnId: 't2' });
    expect(model.calls.slice(callsBefore).map((c) => c.meta.stage)).toEqual(['actor']);
    expect(drafts[1]).toBeUndefined();
    expect((await trees.read('tale')).files).toEqual(filesBefore);
  });

  it('the selection travels with the session through export/import and branches', async () => {
    const { sessionLog } = await storyHarness();
    await sessionLog.import('copy', await sessionLog.export('s1'));
    expect(await readStoryWorkspaceSelection((key) => sessionLog.findLatest('copy', key))).toBe('tale');
    const [event] = await sessionLog.read('s1');
    await sessionLog.branch('s1', event!.id, 'branch');
    expect(await readStoryWorkspaceSelection((key) => sessionLog.findLatest('branch', key))).toBe('tale');
  });

  it('a selected workspace that was deleted → plain flow with an event', async () => {
    const { harness, workspaces, drafts } = await storyHarness();
    const ws = await workspaces.read('tale');
    await workspaces.delete('tale', ws.revision);
    const result = await harness.runTurn({ sessionId: 's1', text: 'x', turnId: 't1' });
    expect(drafts).toEqual([undefined]);
    expect(result.events.find((e) => e.type === 'agent-rp/story-degraded')?.data).toMatchObject({ stage: 'workspace', error: { code: 'TREE_NOT_FOUND' } });
  });

  it('rejects a malformed workspace id', async () => {
    const { sessionLog } = await storyHarness({ select: false });
    await expect(selectStoryWorkspace(sessionLog, 's1', '../x')).rejects.toMatchObject({ code: 'TREE_INVALID_ID' });
  });
});
