// Benchmarks for @troupe/storage-fs (run against dist: `pnpm bench` builds first).
// Prints commit latency, settle latency vs history length, append throughput and log reopen time.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { fsStorage } from '../dist/index.js';

const run = promisify(execFile);
const root = await mkdtemp(join(tmpdir(), 'troupe-bench-'));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value) => `${value.toFixed(2)} ms`;
const event = (n, key) => ({ turnId: `t${n}`, step: 0, type: 'story/draft', ignorable: false, at: '2026-01-01T00:00:00.000Z', key, data: { text: `turn ${n} `.repeat(25) } });

try {
  const { trees, sessions } = fsStorage({ root });

  // 1. Commit latency: a 5-file workspace, every commit rewrites all 5 files.
  const files = { 'manifest.json': '{"name":"bench"}', 'outline.md': 'o'.repeat(2000), 'history.md': 'h'.repeat(8000), 'characters/lia/persona.md': 'p'.repeat(1500), 'proposals.md': 'x'.repeat(500) };
  await trees.create('commit-bench', files);
  const commitTimes = [];
  let revision = 1;
  for (let i = 0; i < 300; i++) {
    const writes = { 'outline.md': `o${i}`.repeat(500), 'history.md': `h${i}`.repeat(2000), 'characters/lia/persona.md': `p${i}`.repeat(300), 'proposals.md': `x${i}`.repeat(100), 'manifest.json': `{"name":"bench","turn":${i}}` };
    const start = performance.now();
    revision = (await trees.commit('commit-bench', { baseRevision: revision, writes })).revision;
    commitTimes.push(performance.now() - start);
  }
  console.log(`commit (5 files, 300 runs): p50 ${ms(percentile(commitTimes, 50))}, p99 ${ms(percentile(commitTimes, 99))}`);

  // 2. Settle latency with 10 / 1 000 / 10 000 prior turns (3 files per turn, ~250 B per block).
  const settleAt = {};
  for (const prior of [10, 1_000, 10_000]) {
    const id = `settle-${prior}`;
    await trees.create(id, { 'history.md': '# History\n' });
    for (let turn = 0; turn < prior; turn++) {
      await trees.settle(id, { marker: `turn-${turn}:0`, appends: { 'history.md': `Turn ${turn}: `.repeat(20), 'characters/lia/knowledge.md': `k${turn}`, 'proposals.md': `p${turn}` } });
    }
    const times = [];
    for (let turn = prior; turn < prior + 100; turn++) {
      const start = performance.now();
      await trees.settle(id, { marker: `turn-${turn}:0`, appends: { 'history.md': `Turn ${turn}: `.repeat(20), 'characters/lia/knowledge.md': `k${turn}`, 'proposals.md': `p${turn}` } });
      times.push(performance.now() - start);
    }
    const size = (await stat(join(root, 'story-workspaces', id, 'history.md'))).size;
    settleAt[prior] = percentile(times, 50);
    console.log(`settle after ${prior} turns (history.md ${(size / 1024).toFixed(0)} KiB, 100 runs): p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}`);
  }
  console.log(`settle ratio 10 000 : 10 (p50) = ${(settleAt[10_000] / settleAt[10]).toFixed(2)}×`);

  // 3. Session append throughput (each batch is one write + one fsync).
  for (const batch of [1, 10, 100]) {
    const sessionId = `append-${batch}`;
    const batches = batch === 1 ? 500 : batch === 10 ? 200 : 50;
    const start = performance.now();
    for (let i = 0; i < batches; i++) await sessions.append(sessionId, Array.from({ length: batch }, (_, j) => event(i * batch + j)));
    const seconds = (performance.now() - start) / 1000;
    console.log(`append batches of ${batch}: ${Math.round((batches * batch) / seconds)} events/s (${ms((seconds * 1000) / batches)} per batch)`);
  }

  let start;
  // 4. Reopen a 100 000-event log and find a replay key: a fresh process (cold in-memory state)
  // using the persisted index.jsonl, then the same without it (one full scan, for comparison).
  for (let i = 0; i < 100; i++) await sessions.append('big', Array.from({ length: 1000 }, (_, j) => event(i * 1000 + j, `turn-${i * 1000 + j}:0`)));
  const size = (await stat(join(root, 'sessions', 'big', 'events.jsonl'))).size;
  const indexSize = (await stat(join(root, 'sessions', 'big', 'index.jsonl'))).size;
  const child = `
    const { fsStorage } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});
    const start = performance.now();
    const found = await fsStorage({ root: process.argv[1] }).sessions.findLatest('big', { type: 'story/draft', key: 'turn-31337:0' });
    if (found?.turnId !== 't31337') throw new Error('replay key not found');
    process.stdout.write(String(performance.now() - start));`;
  const freshProcess = async () => Number((await run(process.execPath, ['--input-type=module', '-e', child, root])).stdout);
  const processTimes = [];
  for (let i = 0; i < 5; i++) processTimes.push(await freshProcess());
  const freshInstance = async (key) => {
    const start = performance.now();
    const found = await fsStorage({ root }).sessions.findLatest('big', { type: 'story/draft', key });
    if (!found) throw new Error('replay key not found');
    return performance.now() - start;
  };
  const instanceTimes = [];
  for (let i = 0; i < 5; i++) instanceTimes.push(await freshInstance(`turn-${(i * 7919) % 100_000}:0`));
  const reopened = fsStorage({ root }).sessions;
  await reopened.findLatest('big', { type: 'story/draft', key: 'turn-1:0' });
  const warmTimes = [];
  for (let i = 0; i < 50; i++) {
    start = performance.now();
    await reopened.findLatest('big', { type: 'story/draft', key: `turn-${(i * 7919) % 100_000}:0` });
    warmTimes.push(performance.now() - start);
  }
  await unlink(join(root, 'sessions', 'big', 'index.jsonl'));
  const rebuild = await freshInstance('turn-31337:0');
  console.log(
    `reopen 100 000-event log (${(size / 1024 / 1024).toFixed(1)} MiB, index.jsonl ${(indexSize / 1024 / 1024).toFixed(1)} MiB) + find key: ` +
      `fresh process p50 ${ms(percentile(processTimes, 50))} (min ${ms(Math.min(...processTimes))}), fresh store instance p50 ${ms(percentile(instanceTimes, 50))}; ` +
      `later lookups p50 ${ms(percentile(warmTimes, 50))}; without index.jsonl (one scan, then rewritten) ${ms(rebuild)}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
