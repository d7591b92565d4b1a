// Story turns on @troupe/storage-fs (a real temp folder, fsync on): the overhead of a whole story
// turn at model latency 0 (C = 4 characters, S = 3 sections, maxParallel 4), and turn wall / ideal
// critical path at a fixed model latency over 1/4/8 characters × maxParallel 1/4/8.
// `pnpm bench` at the root builds first. BENCH_LATENCY_MS (default 20) sets the fixed latency;
// BENCH_TURNS / BENCH_WARMUP the zero-latency sample; BENCH_PART=overhead|latency runs one part.
// BENCH_PAUSE_MS (default 0) waits between the zero-latency turns (not timed), as a player does:
// storage-fs reads a file again while its last change is too recent to trust its stat (50 ms on
// file systems with nanosecond timestamps), so back-to-back turns re-read what the previous
// settlement wrote, and turns a pause apart show the steady state.
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
// The plugin's own story models for benches (schema-conforming answers for every stage).
import { fixedLatencyModel, instantModel } from '../../packages/plugin-story/bench/instant-model.mjs';

runBeforeAfterIfAsked(import.meta.url);

const L = Number(process.env.BENCH_LATENCY_MS ?? 20);
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 0);
const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const PART = process.env.BENCH_PART ?? 'all';
const SECTIONS = 3;
/** Shown in the headings (e.g. `before` / `after` when two checkouts run side by side). */
const LABEL = process.env.BENCH_LABEL ? ` (${process.env.BENCH_LABEL})` : '';

/**
 * The package's counting fs layer; for a build of storage-fs from before it existed (to print a
 * "before" column from an older checkout) a minimal stand-in counting the same calls.
 */
function countingFs() {
  if (storageFs.countingStorageFs) {
    const counting = storageFs.countingStorageFs();
    if ('synchronous' in counting.counts()) return counting;
    // An older build's counting layer, without its own count of the calls answered on the calling
    // thread (`lstatNow` / `readdirNow` / `readNow`, no thread-pool round trip): counted here.
    let synchronous = 0;
    const inner = { ...storageFs.nodeStorageFs };
    for (const name of ['lstatNow', 'readdirNow', 'readNow']) {
      const call = storageFs.nodeStorageFs[name];
      if (call)
        inner[name] = (...args) => {
          // A small read on the calling thread is open, size (without an end), read and close.
          synchronous += name === 'readNow' ? (args[2] === undefined ? 4 : 3) : 1;
          return call(...args);
        };
    }
    const older = storageFs.countingStorageFs(inner);
    const hasSync = Boolean(storageFs.nodeStorageFs.lstatNow);
    return {
      fs: older.fs,
      counts: () => ({ ...older.counts(), synchronous: hasSync ? synchronous : undefined }),
      reset: () => {
        older.reset();
        synchronous = 0;
      },
    };
  }
  let calls = {};
  const fs = Object.fromEntries(
    Object.entries(storageFs.nodeStorageFs).map(([name, call]) => [
      name,
      async (...args) => {
        const result = await call(...args);
        calls[name] = (calls[name] ?? 0) + 1;
        return result;
      },
    ]),
  );
  const total = () => Object.values(calls).reduce((sum, count) => sum + count, 0);
  return { fs, counts: () => ({ total: total(), fsync: calls.fsync ?? 0, fsyncDir: calls.fsyncDir ?? 0, locks: calls.link ?? 0 }), reset: () => (calls = {}) };
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** A workspace with `characters` characters, SECTIONS sections and one source, on fresh storage in a temp folder. */
async function storyStorage(characters, maxParallel) {
  const root = await mkdtemp(join(tmpdir(), 'troupe-story-bench-'));
  const counting = countingFs();
  const storage = storageFs.fsStorage({ root, fs: counting.fs });
  const workspaces = new StoryWorkspaces(storage.trees);
  let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < SECTIONS; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
  return { ...storage, counting, cleanup: () => rm(root, { recursive: true, force: true }) };
}

async function overhead(characters, maxParallel) {
  const storage = await storyStorage(characters, maxParallel);
  const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model: instantModel(), plugins: [storyPlugin()] });
  const times = [];
  // CPU time of the process (main thread and libuv's fs threads) per turn: steadier than wall
  // time on a machine shared with other work.
  const cpu = [];
  let counts;
  try {
    for (let turn = 0; turn < WARMUP + TURNS; turn++) {
      // A session per turn, so the measured cost does not include a growing history.
      await selectStoryWorkspace(storage.sessions, `s${turn}`, 'bench');
      if (PAUSE_MS > 0) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      storage.counting.reset();
      const start = performance.now();
      const cpuStart = process.cpuUsage();
      await harness.runTurn({ sessionId: `s${turn}`, text: 'I enter the tavern' });
      if (turn >= WARMUP) {
        times.push(performance.now() - start);
        const cpuUsed = process.cpuUsage(cpuStart);
        cpu.push((cpuUsed.user + cpuUsed.system) / 1000);
      }
      counts = storage.counting.counts();
    }
  } finally {
    await harness.close();
    await storage.cleanup();
  }
  return { p50: percentile(times, 0.5), p90: percentile(times, 0.9), cpuP50: percentile(cpu, 0.5), counts };
}

async function latencyRun(characters, maxParallel) {
  const storage = await storyStorage(characters, maxParallel);
  const harness = await createHarness({ trees: storage.trees, sessionLog: storage.sessions, model: fixedLatencyModel(L), plugins: [storyPlugin()] });
  const waves = 1 + Math.ceil(characters / maxParallel) + 1 + Math.ceil(SECTIONS / maxParallel) + 1 + 1 + 1; // + editor, actor, continuity
  let best = Number.POSITIVE_INFINITY;
  try {
    await selectStoryWorkspace(storage.sessions, 's1', 'bench');
    for (let r = 0; r < REPEATS; r++) {
      const start = performance.now();
      await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: `t${r}` });
      best = Math.min(best, performance.now() - start);
    }
  } finally {
    await harness.close();
    await storage.cleanup();
  }
  return { wall: best, ideal: waves * L, waves };
}

if (PART === 'all' || PART === 'overhead') {
  console.log(`## story turn on storage-fs${LABEL} at zero model latency (${TURNS} turns after ${WARMUP} warm-up, ${SECTIONS} sections, ${PAUSE_MS} ms pause between turns, temp folder under ${tmpdir()})`);
  console.log('| characters | maxParallel | ms per turn (p50) | p90 | CPU ms per turn (p50) | fsync | fsyncDir | lock acquisitions | file operations | of them on the calling thread (no thread-pool round trip) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [characters, maxParallel] of [
    [1, 1],
    [4, 4],
    [8, 4],
  ]) {
    const { p50, p90, cpuP50, counts } = await overhead(characters, maxParallel);
    console.log(`| ${characters} | ${maxParallel} | ${p50.toFixed(2)} | ${p90.toFixed(2)} | ${cpuP50.toFixed(2)} | ${counts.fsync} | ${counts.fsyncDir} | ${counts.locks} | ${counts.total} | ${counts.synchronous ?? '–'} |`);
  }
}
if (PART === 'all' || PART === 'latency') {
  console.log(`\n## story turn on storage-fs${LABEL}, L = ${L} ms per model call (best of ${REPEATS})`);
  console.log('| characters | maxParallel | waves | ideal (ms) | wall (ms) | wall / ideal |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const characters of [1, 4, 8]) {
    for (const maxParallel of [1, 4, 8]) {
      const { wall, ideal, waves } = await latencyRun(characters, maxParallel);
      console.log(`| ${characters} | ${maxParallel} | ${waves} | ${ideal} | ${wall.toFixed(1)} | ${(wall / ideal).toFixed(3)} |`);
    }
  }
}
