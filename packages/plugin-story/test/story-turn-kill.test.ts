import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHarness } from '@troupe/kernel';
import { fsStorage } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin } from '../src/index.js';
import { storyModel } from './helpers.js';

// Story turns on real disk, SIGKILLed at random moments (during the stages, the commit, the
// continuity call that overlaps the commit's sync, the settlement): the workspace never holds the
// settlement of a turn whose commit is not in the session log, and once the next harness has
// finished the last committed turn, every committed turn is settled exactly once. The child's
// session log writes slowly, so each commit is stored for longer than the continuity call takes.

// 10 in the default run (about 10 s), 120 with STRESS=1.
const KILLS = process.env.STRESS === '1' ? 120 : 10;
const LOOP = fileURLToPath(new URL('./fixtures/story-turn-loop.mjs', import.meta.url));
const SETTLE_MARK = /<!-- troupe:settle story:(\S+?) -->/g;

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** Runs the turn loop in a child until it has been up for `ms`, then SIGKILLs it. */
async function killAfter(ms: number, storageRoot: string): Promise<void> {
  // Plain Node resolving the built `dist` (no vitest conditions or loaders).
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  // Stages answer after 2 ms; the session log's writes take 25 ms more (see the fixture).
  const child = fork(LOOP, [storageRoot, 's1', '2', '25'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the turn loop exited early (${String(code)})`)));
  });
  await new Promise((resolve) => setTimeout(resolve, ms));
  child.kill('SIGKILL');
  await exited;
}

/** The turn ids whose commit is in the log, and how often each turn's settle block is in history.md. */
async function state(storageRoot: string) {
  const storage = fsStorage({ root: storageRoot });
  const committed = new Set((await storage.sessions.read('s1')).filter((event) => event.type === 'kernel/turn-committed').map((event) => event.turnId));
  const history = (await storage.trees.read('tale')).files['history.md'] ?? '';
  const settled = new Map<string, number>();
  for (const [, marker] of history.matchAll(SETTLE_MARK)) settled.set(marker as string, (settled.get(marker as string) ?? 0) + 1);
  return { committed, settled };
}

describe('story turns on storage-fs killed at random moments', () => {
  it(`never settle an uncommitted turn, and settle every committed turn exactly once (${KILLS} kills)`, { timeout: 600_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-story-kill-'));
    const storage = fsStorage({ root });
    const workspaces = new StoryWorkspaces(storage.trees);
    let ws = await workspaces.create('tale', { name: 'Tale', pipeline: { maxParallel: 4 } });
    for (let i = 0; i < 2; i++) ws = await workspaces.addCharacter('tale', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
    await workspaces.addSection('tale', ws.revision, { id: 'scene', title: 'Scene', kind: 'prose' });
    await selectStoryWorkspace(storage.sessions, 's1', 'tale');

    let uncommittedSettled = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // Past the child's start-up, then anywhere within a few turns (a turn takes 70–120 ms here).
      await killAfter(20 + Math.floor(Math.random() * 400), root);
      const { committed, settled } = await state(root);
      for (const turnId of settled.keys()) if (!committed.has(turnId)) uncommittedSettled++;
    }
    const beforeFinish = await state(root);
    console.log(`${KILLS} kills: ${beforeFinish.committed.size} turns committed, ${beforeFinish.settled.size} settled before the last finish`);
    expect(uncommittedSettled).toBe(0);
    // The kills landed inside turns (not all during start-up), so the checks above saw some.
    expect(beforeFinish.committed.size).toBeGreaterThanOrEqual(Math.ceil(KILLS / 4));

    // The next harness finishes the last committed turn (a turn cut between its commit and its settlement).
    const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model: storyModel(), plugins: [storyPlugin()] });
    await harness.finishCommittedTurn('s1');
    await harness.close();
    const { committed, settled } = await state(root);
    expect([...settled.keys()].filter((turnId) => !committed.has(turnId))).toEqual([]);
    expect([...committed].filter((turnId) => settled.get(turnId) !== 1)).toEqual([]);
  });
});
