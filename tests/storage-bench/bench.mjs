// Side-by-side storage benchmark (`pnpm bench` at the root builds first, then runs this):
// the same workloads on @troupe/storage-fs (a temp folder, fsync per write) and on
// @troupe/storage-postgres (a throwaway PostgreSQL started here with production durability:
// fsync and synchronous commit on, Unix socket). Prints one table per workload.
// QUICK=1 runs smaller sizes (a smoke run; the 100 000-event lookup becomes 10 000).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fsStorage } from '@troupe/storage-fs';
import { postgresStorage } from '@troupe/storage-postgres';
import { startThrowawayServer } from '@troupe/storage-postgres/testing';

const QUICK = process.env.QUICK === '1';
const SIZES = QUICK
  ? { commits: 50, settlePrior: 100, settles: 50, appendBatches: { 1: 100, 10: 40, 100: 10 }, bigSession: 10_000 }
  : { commits: 300, settlePrior: 1_000, settles: 300, appendBatches: { 1: 500, 10: 200, 100: 50 }, bigSession: 100_000 };

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value) => `${value.toFixed(2)} ms`;
const rate = (count, millis) => `${Math.round((count * 1000) / millis)}/s`;
const event = (n, key) => ({ turnId: `t${n}`, step: 0, type: 'story/draft', ignorable: false, at: '2026-01-01T00:00:00.000Z', ...(key ? { key } : {}), data: { text: `turn ${n} `.repeat(25) } });

/** Runs `work` `count` times, returning each duration in ms. */
async function timed(count, work) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await work(i);
    times.push(performance.now() - start);
  }
  return times;
}

function summary(times) {
  const total = times.reduce((sum, time) => sum + time, 0);
  return `${rate(times.length, total)} (p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))})`;
}

/** The workloads, on one store pair. */
async function measure(label, { trees, sessions }, reopen) {
  const results = {};
  // 1. Commits: a 5-file workspace, every commit rewrites all 5 files (~12 KiB).
  const files = { 'manifest.json': '{"name":"bench"}', 'outline.md': 'o'.repeat(2000), 'history.md': 'h'.repeat(8000), 'characters/lia/persona.md': 'p'.repeat(1500), 'proposals.md': 'x'.repeat(500) };
  let revision = (await trees.create('commit-bench', files)).revision;
  results.commits = summary(
    await timed(SIZES.commits, async (i) => {
      const writes = { 'outline.md': `o${i}`.repeat(500), 'history.md': `h${i}`.repeat(2000), 'characters/lia/persona.md': `p${i}`.repeat(300), 'proposals.md': `x${i}`.repeat(100), 'manifest.json': `{"name":"bench","turn":${i}}` };
      revision = (await trees.commit('commit-bench', { baseRevision: revision, writes })).revision;
    }),
  );
  // 2. Settles: 3 appended files per turn, after `settlePrior` earlier turns (history.md grows).
  const settlement = (turn) => ({ marker: `turn-${turn}:0`, appends: { 'history.md': `Turn ${turn}: `.repeat(20), 'characters/lia/knowledge.md': `k${turn}`, 'proposals.md': `p${turn}` } });
  await trees.create('settle-bench', { 'history.md': '# History\n' });
  for (let turn = 0; turn < SIZES.settlePrior; turn++) await trees.settle('settle-bench', settlement(turn));
  results.settles = summary(await timed(SIZES.settles, (i) => trees.settle('settle-bench', settlement(SIZES.settlePrior + i))));
  // 3. Appends: batches of 1, 10 and 100 events (~250 B each).
  results.appends = {};
  for (const [size, batches] of Object.entries(SIZES.appendBatches)) {
    const times = await timed(batches, (i) => sessions.append(`append-${size}`, Array.from({ length: Number(size) }, (_, j) => event(i * Number(size) + j))));
    const total = times.reduce((sum, time) => sum + time, 0);
    results.appends[size] = `${rate(batches * Number(size), total)} events (p50 ${ms(percentile(times, 50))} per batch)`;
  }
  // 4. Replay-key lookup in a big session: cold (a fresh store instance) and warm.
  for (let i = 0; i < SIZES.bigSession / 1000; i++) {
    await sessions.append('big', Array.from({ length: 1000 }, (_, j) => event(i * 1000 + j, `turn-${i * 1000 + j}:0`)));
  }
  const keyAt = (i) => `turn-${(i * 7919) % SIZES.bigSession}:0`;
  const cold = [];
  for (let i = 0; i < 5; i++) {
    const fresh = await reopen();
    const start = performance.now();
    const found = await fresh.sessions.findLatest('big', { type: 'story/draft', key: keyAt(i) });
    cold.push(performance.now() - start);
    if (!found) throw new Error(`${label}: replay key not found`);
    await fresh.close();
  }
  const warm = await timed(200, async (i) => {
    if (!(await sessions.findLatest('big', { type: 'story/draft', key: keyAt(i) }))) throw new Error(`${label}: replay key not found`);
  });
  results.lookup = `fresh store p50 ${ms(percentile(cold, 50))}; later lookups p50 ${ms(percentile(warm, 50))}, p99 ${ms(percentile(warm, 99))}`;
  return results;
}

const root = await mkdtemp(join(tmpdir(), 'troupe-storage-bench-'));
const server = startThrowawayServer({ durable: true });
try {
  const fsResults = await measure('fs', fsStorage({ root }), async () => ({ ...fsStorage({ root }), close: async () => {} }));
  const pg = postgresStorage({ connectionString: server.url });
  await pg.migrate();
  const pgResults = await measure('postgres', pg, async () => postgresStorage({ connectionString: server.url }));
  await pg.close();
  const rows = [
    ['commit (5 files, sequential)', fsResults.commits, pgResults.commits],
    [`settle (3 files, after ${SIZES.settlePrior} turns)`, fsResults.settles, pgResults.settles],
    ...Object.keys(SIZES.appendBatches).map((size) => [`append, batches of ${size}`, fsResults.appends[size], pgResults.appends[size]]),
    [`replay-key lookup, ${SIZES.bigSession.toLocaleString('en')}-event session`, fsResults.lookup, pgResults.lookup],
  ];
  console.log(`storage side by side${QUICK ? ' (QUICK)' : ''}: @troupe/storage-fs (temp folder) vs @troupe/storage-postgres (local PostgreSQL, durable, Unix socket)`);
  console.log('| workload | storage-fs | storage-postgres |\n|---|---|---|');
  for (const [name, fs, postgres] of rows) console.log(`| ${name} | ${fs} | ${postgres} |`);
} finally {
  server.stop();
  await rm(root, { recursive: true, force: true });
}
