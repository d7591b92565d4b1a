import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type StoryDraft } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { draftProbe, seedWorkspace, storyModel } from './helpers.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('a full story turn on @troupe/storage-fs', () => {
  it('prepares, replays after a "restart" from the on-disk log, and settles into real files once', async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-story-'));
    const first = fsStorage({ root });
    await seedWorkspace(first.trees);
    await selectStoryWorkspace(first.sessions, 's1', 'tale');
    // Attempt 1: the actor fails after the draft was prepared (the kernel records the turn's events).
    const failing = storyModel({
      actor: [
        () => {
          throw new Error('actor crashed');
        },
      ],
    });
    const h1 = await createHarness({ trees: first.trees, sessionLog: first.sessions, model: failing, plugins: [storyPlugin()] });
    await expect(h1.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' })).rejects.toMatchObject({ code: 'KERNEL_MODEL_FAILED' });
    await h1.close();
    // Attempt 2 in a fresh "process": new stores over the same root, new plugin, new model.
    const second = fsStorage({ root });
    const model = storyModel({ actor: ['Lia waves from the bar.'] });
    const drafts: (StoryDraft | undefined)[] = [];
    const h2 = await createHarness({ trees: second.trees, sessionLog: second.sessions, model, plugins: [storyPlugin(), draftProbe(drafts)] });
    const result = await h2.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' });
    expect(model.calls.map((c) => c.meta.stage)).toEqual(['actor', 'story/continuity']);
    expect(drafts[0]).toMatchObject({ workspaceId: 'tale', revision: 7, text: expect.stringContaining('## Scene') });
    expect(result.events.some((e) => e.type === STORY_EVENTS.draftReplayed)).toBe(true);
    const dir = join(root, 'story-workspaces', 'tale');
    const history = await readFile(join(dir, 'history.md'), 'utf8');
    expect(history).toBe('HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1 -->\n- Lia greeted the traveller\n');
    expect(await readFile(join(dir, 'characters', 'lia', 'knowledge.md'), 'utf8')).toContain('- A traveller arrived');
    expect(await readFile(join(dir, 'outline.md'), 'utf8')).toBe('OUTLINE: the heist');
    expect(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).revision).toBe(8);
    // Retrying once more settles nothing new.
    await h2.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' });
    expect(await readFile(join(dir, 'history.md'), 'utf8')).toBe(history);
    await h2.close();
  });
});
