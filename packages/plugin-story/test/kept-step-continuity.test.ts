import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatRequest, createHarness } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, storyPlugin } from '../src/index.js';
import { requestText, seedWorkspace, storyHarness, storyModel } from './helpers.js';

// The story's continuity record follows the chat controls (issue 15): a swipe back to an earlier
// step, an edited reply and deleted turns are reflected in history.md, the knowledge files and
// proposals.md from the next turn on, and the stages see the reply the player kept.

/** Continuity answers that say which reply they saw. */
const continuityFor = (tag: string) =>
  JSON.stringify({ publicEvents: [`${tag}: Lia answered`], observations: [{ characterId: 'lia', facts: [`${tag}: Lia saw it`] }], proposals: [`${tag}: a proposal`] });
/** A continuity worker that tags its answer with the first word of the visible reply it was given. */
const continuityEcho = (request: ChatRequest) => continuityFor(/## Visible reply\n(\S+)/.exec(requestText(request))?.[1] ?? '?');

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('story continuity follows swipes, edits and deletes', () => {
  it('acceptance (real harness, storage-fs): after swiping back to step 0 and playing on, history.md holds step 0’s settlement only', async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-kept-step-'));
    const storage = fsStorage({ root });
    await seedWorkspace(storage.trees);
    await selectStoryWorkspace(storage.sessions, 's1', 'tale');
    const model = storyModel({ actor: ['STEP0 reply', 'STEP1 reply', 'T2 reply'], 'story/continuity': [continuityFor('STEP0'), continuityFor('STEP1'), continuityFor('T2')] });
    const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model, plugins: [storyPlugin()] });
    try {
      await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
      await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
      expect((await storage.trees.read('tale')).files['history.md']).toContain('STEP1: Lia answered');

      await harness.selectStep({ sessionId: 's1', turnId: 't1', step: 0 });
      await harness.runTurn({ sessionId: 's1', text: 'and then?', turnId: 't2' });

      const files = (await storage.trees.read('tale')).files;
      expect(files['history.md']).toBe(
        'HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1 -->\n- STEP0: Lia answered\n<!-- troupe:settle story:t2 -->\n- T2: Lia answered\n',
      );
      // A fresh store over the same directory reads the same record from disk.
      expect((await fsStorage({ root }).trees.read('tale')).files['history.md']).toBe(files['history.md']);
      for (const path of ['characters/lia/knowledge.md', 'proposals.md']) {
        expect(files[path]).toContain('STEP0');
        expect(files[path]).not.toContain('STEP1');
      }
      // The second turn's stages saw the kept reply, not the latest one.
      const stages = model.calls.filter((call) => call.meta.turnId === 't2' && call.meta.stage.startsWith('story/') && call.meta.stage !== 'story/continuity');
      expect(stages.length).toBeGreaterThan(0);
      expect(stages.some((call) => requestText(call).includes('STEP0 reply'))).toBe(true);
      expect(stages.some((call) => requestText(call).includes('STEP1 reply'))).toBe(false);
      const reconciled = (await storage.sessions.read('s1')).filter((event) => event.type === STORY_EVENTS.reconciled);
      expect(reconciled).toHaveLength(1);
      expect(reconciled[0]).toMatchObject({ turnId: 't2', data: { workspaceId: 'tale', applied: true, turns: ['t1'] } });

      // Nothing changed since: the next turn neither reads the log for it nor rewrites anything.
      const revision = (await storage.trees.read('tale')).revision;
      await harness.runTurn({ sessionId: 's1', text: 'go on', turnId: 't3' });
      expect((await storage.sessions.read('s1')).filter((event) => event.type === STORY_EVENTS.reconciled)).toHaveLength(1);
      expect((await storage.trees.read('tale')).files['history.md']).toContain('<!-- troupe:settle story:t1 -->\n- STEP0: Lia answered\n<!-- troupe:settle story:t2 -->');
      expect((await storage.trees.read('tale')).revision).toBe(revision + 1); // only t3's own settlement
    } finally {
      await harness.close();
    }
  }, 30_000);

  it('swiping forward again brings step 1 back, in the same place', async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('STEP0'), continuityFor('STEP1'), continuityFor('T2'), continuityFor('T3')] });
    const { harness, trees } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1', step: 1 });
    await harness.selectStep({ sessionId: 's1', turnId: 't1', step: 0 });
    await harness.runTurn({ sessionId: 's1', text: 'next', turnId: 't2' });
    expect((await trees.read('tale')).files['history.md']).toContain('<!-- troupe:settle story:t1 -->\n- STEP0: Lia answered\n<!-- troupe:settle story:t2 -->');
    await harness.selectStep({ sessionId: 's1', turnId: 't1', step: 1 });
    await harness.runTurn({ sessionId: 's1', text: 'next', turnId: 't3' });
    const history = (await trees.read('tale')).files['history.md'] ?? '';
    expect(history).toBe(
      'HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1:1 -->\n- STEP1: Lia answered\n<!-- troupe:settle story:t2 -->\n- T2: Lia answered\n<!-- troupe:settle story:t3 -->\n- T3: Lia answered\n',
    );
  });

  it('an edited reply is the visible reply from then on: the stages see it, and its settlement replaces the original’s once', async () => {
    const model = storyModel({ actor: ['ORIGINAL reply', 'T2 reply', 'T3 reply'], 'story/continuity': [continuityEcho] });
    const { harness, trees, sessionLog } = await storyHarness({ model });
    await harness.runTurn({ sessionId: 's1', text: 'knock', turnId: 't1' });
    expect((await trees.read('tale')).files['history.md']).toContain('ORIGINAL: Lia answered');
    await harness.editTurn({ sessionId: 's1', turnId: 't1', reply: 'EDITED reply: Lia hands over the key' });
    await harness.runTurn({ sessionId: 's1', text: 'thanks', turnId: 't2' });

    // The continuity worker read the edited text once, and its block took the original's place.
    const continuity = model.callsFor('story/continuity').map(requestText);
    expect(continuity.filter((text) => text.includes('EDITED reply'))).toHaveLength(1);
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).not.toContain('ORIGINAL');
    expect(files['history.md']).toMatch(/^HISTORY: the party met at the tavern\.\n<!-- troupe:settle story:t1:edit-e\d+ -->\n- EDITED: Lia answered\n<!-- troupe:settle story:t2 -->\n/);
    expect(files['proposals.md']).toContain('EDITED: a proposal');
    expect(files['proposals.md']).not.toContain('ORIGINAL: a proposal');
    // Every stage of the next turn saw the edited reply, never the original.
    const t2Stages = model.calls.filter((call) => call.meta.turnId === 't2' && call.meta.stage.startsWith('story/'));
    expect(t2Stages.some((call) => requestText(call).includes('EDITED reply'))).toBe(true);
    expect(t2Stages.some((call) => requestText(call).includes('ORIGINAL reply'))).toBe(false);
    expect((await sessionLog.read('s1')).filter((event) => event.type === STORY_EVENTS.resettled)).toHaveLength(1);

    // Later turns reuse the recorded re-settlement: no second continuity call for the edit.
    await harness.runTurn({ sessionId: 's1', text: 'bye', turnId: 't3' });
    expect(model.callsFor('story/continuity').map(requestText).filter((text) => text.includes('EDITED reply'))).toHaveLength(1);
  });

  it('deleted turns leave the record; a block the player edited by hand stays theirs', async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('T1'), continuityFor('T2'), continuityFor('T3'), continuityFor('T4')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    for (const turnId of ['t1', 't2', 't3']) await harness.runTurn({ sessionId: 's1', text: `line ${turnId}`, turnId });
    // The player rewrites t1's block by hand: it is no longer the plugin's to replace.
    const ws = await workspaces.read('tale');
    const handEdited = (ws.files['history.md'] ?? '').replace('- T1: Lia answered', '- T1 (my words): Lia answered');
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': handEdited });
    await harness.removeTurns({ sessionId: 's1', fromTurnId: 't2' });
    await harness.runTurn({ sessionId: 's1', text: 'again', turnId: 't4' });
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe(
      'HISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1 -->\n- T1 (my words): Lia answered\n<!-- troupe:settle story:t4 -->\n- T4: Lia answered\n',
    );
    expect(files['proposals.md']).not.toMatch(/T2|T3/);
  });

  it("a deleted last turn leaves the record even when a player's save dropped the file's last line break", async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('T1'), continuityFor('T2'), continuityFor('T3')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    for (const turnId of ['t1', 't2']) await harness.runTurn({ sessionId: 's1', text: `line ${turnId}`, turnId });
    // The player adds a note at the top and saves without a final newline, as many editors do.
    const ws = await workspaces.read('tale');
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': `TOP NOTE\n${(ws.files['history.md'] ?? '').replace(/\n$/, '')}` });
    await harness.removeTurns({ sessionId: 's1', fromTurnId: 't2' });
    await harness.runTurn({ sessionId: 's1', text: 'again', turnId: 't3' });
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe(
      'TOP NOTE\nHISTORY: the party met at the tavern.\n<!-- troupe:settle story:t1 -->\n- T1: Lia answered\n<!-- troupe:settle story:t3 -->\n- T3: Lia answered\n',
    );
    expect(files['characters/lia/knowledge.md']).not.toContain('T2');
  });

  it('a deleted last turn leaves the record of a history.md checked out with Windows line endings (CRLF); the lines around it keep theirs', async () => {
    const model = storyModel({ 'story/continuity': [continuityFor('T1'), continuityFor('T2'), continuityFor('T3')] });
    const { harness, trees, workspaces } = await storyHarness({ model });
    for (const turnId of ['t1', 't2']) await harness.runTurn({ sessionId: 's1', text: `line ${turnId}`, turnId });
    const ws = await workspaces.read('tale');
    const crlf = (path: string) => (ws.files[path] ?? '').replace(/\n/g, '\r\n');
    await workspaces.writeFiles('tale', ws.revision, { 'history.md': crlf('history.md'), 'characters/lia/knowledge.md': crlf('characters/lia/knowledge.md') });
    await harness.removeTurns({ sessionId: 's1', fromTurnId: 't2' });
    await harness.runTurn({ sessionId: 's1', text: 'again', turnId: 't3' });
    const files = (await trees.read('tale')).files;
    expect(files['history.md']).toBe(
      'HISTORY: the party met at the tavern.\r\n<!-- troupe:settle story:t1 -->\r\n- T1: Lia answered\r\n<!-- troupe:settle story:t3 -->\n- T3: Lia answered\n',
    );
    expect(files['characters/lia/knowledge.md']).not.toContain('T2');
    expect(files['characters/lia/knowledge.md']).toContain('T1');
  });
});
