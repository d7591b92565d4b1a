// Where a story turn on @troupe/storage-fs spends the time that is not model latency, at a fixed
// model latency (BENCH_LATENCY_MS, default 20): per phase, the median over BENCH_TURNS turns of one
// session (default 40, after 5 untimed), for C characters × maxParallel P (BENCH_CONFIGS, default
// "1x1 4x4 8x8"). The phases are marked by the model calls and by the file operations that end
// them (a wrapping fs layer records each one's start and end):
// - start: turn start → first model call (turn lock, history, workspace read);
// - actor → continuity: the actor's reply → the continuity call (review, the commit, postReview's
//   start);
// - tail: the continuity answer → the turn's end, split into: tree lock taken; intent durable
//   (workspace check and reads, the intent and its folder sync); applied (files, marker, record and
//   its folder sync); the kernel's last append (postReview's events and `kernel/post-review-done`);
//   the rest (turn lock release).
// Wall / ideal at the same latency is `story-turn.mjs`; this one says which phase a change moved.
// BENCH_BEFORE=<checkout of an older build> runs this same file there too (a copy placed in its
// tests/storage-bench, so its own packages resolve), alternating before / after for BENCH_ROUNDS
// rounds (default 2), each in a fresh process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHarness } from '@troupe/kernel';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin } from '@troupe/plugin-story';
import * as storageFs from '@troupe/storage-fs';
import { runBeforeAfterIfAsked } from './before-after.mjs';
import { fixedLatencyModel } from '../../packages/plugin-story/bench/instant-model.mjs';

runBeforeAfterIfAsked(import.meta.url);

const L = Number(process.env.BENCH_LATENCY_MS ?? 20);
const TURNS = Number(process.env.BENCH_TURNS ?? 40);
const WARMUP = 5;
const SECTIONS = 3;
const CONFIGS = (process.env.BENCH_CONFIGS ?? '1x1 4x4 8x8').split(/\s+/).map((pair) => pair.split('x').map(Number));
const LABEL = process.env.BENCH_LABEL ? ` (${process.env.BENCH_LABEL})` : '';

/** Node's fs layer, recording every call's name, first path(s), start and end (ms since `origin`). */
function recordingFs(clock) {
  const pathsOf = (args) => (typeof args[0] === 'string' ? args[0] : '') + (typeof args[1] === 'string' ? ` -> ${args[1]}` : '');
  return Object.fromEntries(
    Object.entries(storageFs.nodeStorageFs).map(([name, call]) => {
      // The calling-thread forms (`…Now`) stay synchronous: the stores rely on it.
      if (name.endsWith('Now'))
        return [
          name,
          (...args) => {
            const start = clock.now();
            const result = call(...args);
            clock.ops.push({ name, path: pathsOf(args), start, end: clock.now() });
            return result;
          },
        ];
      return [
        name,
        async (...args) => {
          const start = clock.now();
          const result = await call(...args);
          clock.ops.push({ name, path: pathsOf(args), start, end: clock.now() });
          return result;
        },
      ];
    }),
  );
}

async function phasesOf(characters, maxParallel) {
  const clock = { origin: 0, ops: [], calls: [], now: () => performance.now() - clock.origin };
  const root = await mkdtemp(join(tmpdir(), 'troupe-story-phases-'));
  const storage = storageFs.fsStorage({ root, fs: recordingFs(clock) });
  const workspaces = new StoryWorkspaces(storage.trees);
  let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < SECTIONS; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
  const inner = fixedLatencyModel(L);
  const model = {
    id: inner.id,
    async generate(request) {
      const start = clock.now();
      const response = await inner.generate(request);
      clock.calls.push({ stage: request.meta.stage, start, end: clock.now() });
      return response;
    },
  };
  const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model, plugins: [storyPlugin()] });
  const rows = [];
  try {
    await selectStoryWorkspace(storage.sessions, 's1', 'bench');
    for (let turn = 0; turn < WARMUP + TURNS; turn++) {
      clock.ops = [];
      clock.calls = [];
      clock.origin = performance.now();
      await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: `t${turn}` });
      const wall = clock.now();
      if (turn >= WARMUP) rows.push(phases(clock, wall));
    }
  } finally {
    await harness.close();
    await rm(root, { recursive: true, force: true });
  }
  return rows;
}

/** One turn's phases (ms), from its model calls and file operations. */
function phases({ ops, calls }, wall) {
  const actor = calls.find((call) => call.stage === 'actor');
  const continuity = calls.find((call) => call.stage === 'story/continuity');
  const after = ops.filter((op) => op.start >= continuity.end).sort((a, b) => a.start - b.start);
  const endOf = (test, from) => {
    const index = after.findIndex((op, at) => at > from && test(op));
    return { index, end: index >= 0 ? after[index].end : Number.NaN };
  };
  const locked = endOf((op) => op.name === 'link' && op.path.endsWith('/.troupe/lock'), -1);
  const intent = endOf((op) => op.name === 'fsyncDir' && op.path.endsWith('/.troupe'), locked.index);
  const applied = endOf((op) => op.name === 'fsyncDir' && op.path.endsWith('/.troupe'), intent.index);
  const appended = endOf((op) => op.name === 'rename' && op.path.includes('/s1/lock ->'), applied.index);
  return {
    wall,
    start: Math.min(...calls.map((call) => call.start)),
    actorToContinuity: continuity.start - actor.end,
    tail: wall - continuity.end,
    treeLock: locked.end - continuity.end,
    intent: intent.end - locked.end,
    applied: applied.end - intent.end,
    lastAppend: appended.end - applied.end,
    rest: wall - appended.end,
  };
}

const median = (rows, key) => {
  const values = rows.map((row) => row[key]).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)].toFixed(2);
};

console.log(`## story turn phases on storage-fs${LABEL}, L = ${L} ms (median of ${TURNS} turns, ms)`);
console.log('| characters × maxParallel | wall | start | actor → continuity | tail | tail: tree lock | intent durable | applied | last append | rest |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [characters, maxParallel] of CONFIGS) {
  const rows = await phasesOf(characters, maxParallel);
  const cells = ['wall', 'start', 'actorToContinuity', 'tail', 'treeLock', 'intent', 'applied', 'lastAppend', 'rest'].map((key) => median(rows, key));
  console.log(`| ${characters} × ${maxParallel} | ${cells.join(' | ')} |`);
}
