import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type SessionLog } from '@troupe/kernel';
import { countingStorageFs, fsStorage, type StorageFsCounts } from '@troupe/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { selectStoryWorkspace, STORY_EVENTS, StoryWorkspaces, storyPlugin } from '../src/index.js';
import { requestText, seedWorkspace, storyModel } from './helpers.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** The workspace files (not the store's private files) among the paths a counting layer saw opened. */
function workspaceFiles(opened: readonly string[]): string[] {
  const marker = '/story-workspaces/';
  return opened.filter((path) => path.includes(marker) && !path.includes('/.troupe/')).map((path) => path.slice(path.indexOf(marker) + marker.length));
}

/** A workspace with `characters` characters and `sections` sections on fresh storage-fs whose calls are counted. */
async function countedStory(characters: number, sections: number, readSuffix = '') {
  root = await mkdtemp(join(tmpdir(), 'troupe-story-rt-'));
  const counting = countingStorageFs(undefined, readSuffix);
  const storage = fsStorage({ root, fs: counting.fs });
  const workspaces = new StoryWorkspaces(storage.trees);
  let ws = await workspaces.create('tale', { name: 'Tale', outline: 'OUTLINE: the heist', pipeline: { maxParallel: 4 } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('tale', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < sections; i++) ws = await workspaces.addSection('tale', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  await selectStoryWorkspace(storage.sessions, 's1', 'tale');
  return { ...storage, counting, root };
}

/** Whether the turn's settlement is in the log (postReview finished writing). */
async function settled(sessions: SessionLog, turnId: string): Promise<boolean> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await sessions.findLatest('s1', { type: STORY_EVENTS.settled, key: `story:${turnId}` })) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/**
 * Longer than storage-fs's "racy" window on a file system with nanosecond timestamps (50 ms): a
 * file changed less than that before it was read is read again next time, since a same-size save
 * within the clock's granularity would leave its stat unchanged. Pausing this long between turns
 * makes every turn see the steady state (only the files the last settlement wrote are new).
 */
const PAST_RACY_WINDOW_MS = 120;
const pause = () => new Promise((resolve) => setTimeout(resolve, PAST_RACY_WINDOW_MS));

/** Per test: real disk turns with those pauses, far past vitest's 5 s default when a whole test run shares the machine. */
const REAL_DISK_TIMEOUT_MS = 60_000;

/** Runs `turns` story turns in one session and returns what each cost, from its start until its settlement is logged. */
async function countTurns(characters: number, sections: number, turns: number): Promise<(StorageFsCounts & { opened: string[] })[]> {
  const story = await countedStory(characters, sections);
  const harness = await createHarness({ trees: story.trees, sessionLog: story.sessions, model: storyModel(), plugins: [storyPlugin()] });
  const counts: (StorageFsCounts & { opened: string[] })[] = [];
  try {
    for (let turn = 1; turn <= turns; turn++) {
      await pause();
      story.counting.reset();
      await harness.runTurn({ sessionId: 's1', text: `turn ${turn}`, turnId: `t${turn}` });
      expect(await settled(story.sessions, `t${turn}`)).toBe(true);
      // The settlement answered once durable; its tail (record folder sync, intent removal, lock
      // release) belongs to this turn's count.
      await story.trees.idle();
      const count = story.counting.counts();
      counts.push({ ...count, opened: workspaceFiles(count.opened).sort() });
    }
  } finally {
    await harness.close();
  }
  return counts;
}

describe('story turns on @troupe/storage-fs: a small fixed number of round trips', () => {
  it('fsyncs and lock acquisitions per turn are the same for 1 or 4 characters, 1 or 3 sections, turn 2 or turn 5', async () => {
    const results: { config: string; fsync: number; fsyncDir: number; locks: number }[] = [];
    for (const [characters, sections] of [
      [1, 1],
      [4, 3],
    ] as const) {
      const counts = await countTurns(characters, sections, 5);
      // Turn 1 is a session's first use in this process; from turn 2 on every turn is alike.
      for (const [at, count] of counts.slice(1).entries()) results.push({ config: `C=${characters} S=${sections} turn ${at + 2}`, fsync: count.fsync, fsyncDir: count.fsyncDir, locks: count.locks });
      await rm(root ?? '', { recursive: true, force: true });
    }
    console.log(results.map((r) => `${r.config}: ${r.fsync} fsync, ${r.fsyncDir} fsyncDir, ${r.locks} locks`).join('\n'));
    const first = results[0]!;
    for (const result of results) expect({ ...result, config: '' }).toEqual({ ...first, config: '' });
    // The turn lock, the commit's and postReview's appends and the settlement: no lock per event
    // lookup, and none for reading an unchanged workspace (15 locks and 14 syncs before issue 22).
    expect(first.locks).toBeLessThanOrEqual(4);
    // Two appends (one fsync each) and one crash-safe settlement: staged manifest, intent, the
    // manifest's rename, one fsync per appended file (history.md and proposals.md here), the
    // settle marker, the record and the intent's removal. No record rewrite on the read.
    expect(first.fsync + first.fsyncDir).toBeLessThanOrEqual(13);
  }, REAL_DISK_TIMEOUT_MS);

  it('an unchanged workspace is not read again: the same files are opened for 1 or 8 characters, and the stat checks grow by one call per file and folder', async () => {
    const perConfig: Record<string, (StorageFsCounts & { opened: string[] })[]> = {};
    for (const [characters, sections] of [
      [1, 1],
      [8, 3],
    ] as const) {
      // Turn 1 reads the workspace in full (its first read in this process); turns 2–4 are alike.
      const turns = await countTurns(characters, sections, 4);
      // (The recorder sees reads: the settlement's own files are read again every turn.)
      expect(turns[1]?.opened.length).toBeGreaterThan(0);
      perConfig[`${characters}`] = turns.slice(1);
      await rm(root ?? '', { recursive: true, force: true });
    }
    const small = perConfig['1'] ?? [];
    const big = perConfig['8'] ?? [];
    for (const [at, turn] of big.entries()) {
      const other = small[at];
      // Only files the previous settlement changed are opened: never a character, a section or a
      // source, whatever their number.
      expect(turn.opened).toEqual(other?.opened);
      expect(turn.opened.every((path) => !path.includes('/characters/') && !path.includes('/sections/'))).toBe(true);
      const { lstat = 0, readdir = 0, ...rest } = turn.byOperation;
      const { lstat: smallLstat = 0, readdir: smallReaddir = 0, ...smallRest } = other?.byOperation ?? {};
      // Every other operation (opens, reads, writes, syncs, renames, locks) is the same count.
      expect(rest).toEqual(smallRest);
      // What grows is the stat check that sees a player's save in an editor: per check (preActor's
      // read, postReview's revision check, the settlement's edit check) one stat per added file
      // (7 characters × 2 files + 2 sections) and one listing per added character folder.
      expect(lstat - smallLstat).toBeLessThanOrEqual(3 * (7 * 2 + 2));
      expect(readdir - smallReaddir).toBeLessThanOrEqual(3 * 7);
    }
  }, REAL_DISK_TIMEOUT_MS);

  it('postReview reuses the turn’s workspace read while the revision is unchanged, and sees a player’s edit made during the turn', async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-story-rt-'));
    // Only tree reads open outline.md: count the bytes read from it.
    const counting = countingStorageFs(undefined, 'outline.md');
    const storage = fsStorage({ root, fs: counting.fs });
    await seedWorkspace(storage.trees);
    await selectStoryWorkspace(storage.sessions, 's1', 'tale');
    const outline = Buffer.byteLength('OUTLINE: the heist');
    let edit: string | undefined;
    const model = storyModel({
      actor: [
        async () => {
          // Between preActor's read and postReview: the player saves outline.md in an editor.
          if (edit !== undefined) await writeFile(join(root ?? '', 'story-workspaces', 'tale', 'outline.md'), edit);
          return 'Lia waves.';
        },
      ],
    });
    const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model, plugins: [storyPlugin()] });
    try {
      await pause();
      counting.reset();
      await harness.runTurn({ sessionId: 's1', text: 'warm up', turnId: 't0' });
      expect(await settled(storage.sessions, 't0')).toBe(true);
      // At most once (the store may still hold it from seeding the workspace).
      expect(counting.counts().bytesRead).toBeLessThanOrEqual(outline);
      await pause();
      counting.reset();
      await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: 't1' });
      expect(await settled(storage.sessions, 't1')).toBe(true);
      // Unchanged since (its stat says so, and it was read long enough after its last change):
      // preActor takes it from memory, postReview only checks the revision. Nothing is read.
      expect(counting.counts().bytesRead).toBe(0);

      edit = 'OUTLINE: PLAYER-EDIT the heist moves to the docks';
      await pause();
      counting.reset();
      await harness.runTurn({ sessionId: 's1', text: 'I leave', turnId: 't2' });
      expect(await settled(storage.sessions, 't2')).toBe(true);
      // The edit is a new revision (the store hashed the changed file once to confirm it), so
      // postReview read the workspace again and continuity saw the player's text.
      expect(counting.counts().bytesRead).toBe(2 * Buffer.byteLength(edit));
      const continuity = model.calls.filter((call) => call.meta.stage === 'story/continuity').at(-1);
      expect(requestText(continuity!)).toContain('PLAYER-EDIT');
    } finally {
      await harness.close();
    }
  }, REAL_DISK_TIMEOUT_MS);
});
