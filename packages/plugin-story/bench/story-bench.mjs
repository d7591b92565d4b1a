// Benchmarks for @troupe/plugin-story (run with `pnpm bench`, after `tsc -b`).
// 1. Pipeline: turn wall time / ideal critical path with a fixed simulated latency L per model call.
// 2. Retrieval: index build and query time over 1 MB and 10 MB of mixed Chinese/English Markdown.
// `BENCH_BEFORE=<checkout>` (another built clone or worktree) also runs the pipeline of that tree,
// alternating with this one per configuration, for before/after rows from one run.
// Pipeline options: BENCH_LATENCY_MS (L, default 100), BENCH_REPEATS (turns per configuration, best
// kept, default 3), BENCH_MODEL=fixed (a free answering model instead of model-offline),
// BENCH_WARMUP (default 20: zero-latency turns per tree before the table, untimed, so the table
// measures a process that has run turns before, as a server has; BENCH_WARMUP=0 measures the
// first turns of a fresh process, JIT warm-up included), BENCH_RETRIEVAL=0 (skip part 2).
// `CPU` is the process CPU time per turn (median): after every wait of L the code runs cold, so it
// is several times the zero-latency cost, and a loaded machine disturbs it less than wall time.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as kernel from '@troupe/kernel';
import * as testing from '@troupe/kernel/testing';
import * as story from '../dist/index.js';
import MiniSearch from 'minisearch';
import { chunkMarkdown } from '../dist/retrieval/chunk-markdown.js';
import { SourceIndex } from '../dist/retrieval/source-index.js';
import { processTerm, tokenize } from '../dist/retrieval/tokenizer.js';
import { fixedLatencyModel as fixedLatencyModelOf, instantModel } from './instant-model.mjs';

const L = Number(process.env.BENCH_LATENCY_MS ?? 100);
const SECTIONS = 3;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);

/** A model that answers every stage after exactly L ms with the instant model's schema-conforming output (fallback). */
const fixedLatencyModel = fixedLatencyModelOf(L);

// The offline model (fixed simulated latency) when it is built; else the small model above.
// `BENCH_MODEL=fixed` keeps the small model: its answers cost nothing, so the wall time is the
// pipeline's own (the offline model writes real text, which costs CPU on every call).
let latencyModel = fixedLatencyModel;
let modelLabel = 'bench fixed-latency model';
if (process.env.BENCH_MODEL !== 'fixed') try {
  const { offlineModel } = await import('@troupe/model-offline');
  latencyModel = offlineModel({ latencyMs: L });
  modelLabel = '@troupe/model-offline';
} catch {
  // not built or not installed: keep the fallback
}

const pipelineTrees = [{ label: 'this tree', kernel, testing, story }];
if (process.env.BENCH_BEFORE) {
  const at = (file) => pathToFileURL(path.join(path.resolve(process.env.BENCH_BEFORE), file)).href;
  pipelineTrees.unshift({
    label: 'before',
    kernel: await import(at('packages/kernel/dist/index.js')),
    testing: await import(at('packages/kernel/dist/testing/index.js')),
    story: await import(at('packages/plugin-story/dist/index.js')),
  });
}

/** A harness of `tree` on in-memory stores with a workspace of `characters` and 3 sections, selected for `s1`. */
async function benchHarness(tree, characters, maxParallel, model) {
  const { createHarness } = tree.kernel;
  const { MemorySessionLog, MemoryTreeStore } = tree.testing;
  const { selectStoryWorkspace, StoryWorkspaces, storyPlugin } = tree.story;
  const trees = new MemoryTreeStore();
  const sessionLog = new MemorySessionLog();
  const workspaces = new StoryWorkspaces(trees);
  let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < SECTIONS; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  ws = await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
  const harness = await createHarness({ trees, sessionLog, model, plugins: [storyPlugin()] });
  await selectStoryWorkspace(sessionLog, 's1', 'bench');
  return harness;
}

/** Runs WARMUP zero-latency turns of `tree` (untimed), so the table does not time JIT warm-up. */
async function warmUp(tree) {
  if (WARMUP <= 0) return;
  const harness = await benchHarness(tree, 4, 4, instantModel());
  for (let turn = 0; turn < WARMUP; turn++) await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: `w${turn}` });
  await harness.close();
}

async function pipelineRun(tree, characters, maxParallel) {
  const harness = await benchHarness(tree, characters, maxParallel, latencyModel);
  const waves = 1 + Math.ceil(characters / maxParallel) + 1 + Math.ceil(SECTIONS / maxParallel) + 1 + 1 + 1; // + editor, actor, continuity
  let best = Number.POSITIVE_INFINITY;
  const cpu = [];
  for (let r = 0; r < REPEATS; r++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: `t${r}` });
    best = Math.min(best, performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  await harness.close();
  return { wall: best, ideal: waves * L, waves, cpu: percentile(cpu, 0.5) };
}

function mixedMarkdown(bytes, seed) {
  const zh = ['酒馆', '公会', '莉娅', '河边', '老板', '一笔钱', '骑士', '城堡', '魔法', '旅人', '夜晚', '秘密', '地图', '钥匙'];
  const en = ['tavern', 'guild', 'river', 'knight', 'castle', 'magic', 'traveller', 'night', 'secret', 'map', 'key', 'debt', 'ale', 'market'];
  let state = seed;
  const rand = (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % n;
  };
  const parts = [];
  let size = 0;
  let line = 0;
  while (size < bytes) {
    let text;
    if (line % 20 === 0) text = `## ${zh[rand(zh.length)]} ${en[rand(en.length)]} ${line}`;
    else {
      const words = [];
      for (let i = 0; i < 12; i++) words.push(rand(2) ? zh[rand(zh.length)] : en[rand(en.length)]);
      text = rand(2) ? `${words.join('')}。` : `${words.join(' ')}.`;
    }
    parts.push(text, line % 5 === 4 ? '\n\n' : '\n');
    size += Buffer.byteLength(text) + 1;
    line++;
  }
  return parts.join('');
}

// The query the pipeline really sends: the recent messages (6 by default) plus the input.
function pipelineQueries(count) {
  return Array.from({ length: count }, (_, n) => {
    const recent = Array.from({ length: 6 }, (_, m) => mixedMarkdown(300, 1000 + n * 7 + m).replace(/^## .*\n/gm, ''));
    return [...recent, n % 2 ? '莉娅欠公会的钱在哪里？' : 'Where is the secret map of the castle?'].join('\n');
  });
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

// The index before issue 22 (MiniSearch 7 with the same tokenizer, fields and boosts), for the
// before/after columns of the same run.
function miniSearchIndex(sources) {
  const search = new MiniSearch({
    fields: ['title', 'heading', 'text'],
    storeFields: ['sourceId', 'title', 'heading', 'text', 'line'],
    tokenize,
    processTerm,
    autoVacuum: false,
    searchOptions: { boost: { title: 2, heading: 1.5 }, combineWith: 'OR', tokenize, processTerm },
  });
  for (const source of sources) search.addAll(chunkMarkdown(source.text, 600).map((chunk, n) => ({ id: `${source.id}#${n}`, sourceId: source.id, title: source.title, ...chunk })));
  return search;
}

function retrievalRun(totalBytes) {
  const files = 10;
  const sources = Array.from({ length: files }, (_, i) => ({ id: `src${i}`, title: `Source ${i}`, text: mixedMarkdown(totalBytes / files, i + 1) }));
  const index = new SourceIndex();
  let start = performance.now();
  index.update(sources);
  const build = performance.now() - start;
  // An unchanged turn: the same texts as fresh strings (as a store read returns them).
  const copies = sources.map((s) => ({ ...s, text: `${s.text} `.slice(0, -1) }));
  start = performance.now();
  index.update(copies);
  const unchanged = performance.now() - start;
  const queries = ['莉娅欠公会的钱在哪里', 'where is the secret map of the castle', '骑士 knight 城堡 tavern', '旅人在夜晚的河边'];
  const rounds = 25;
  start = performance.now();
  let hits = 0;
  for (let r = 0; r < rounds; r++) for (const q of queries) hits += index.query(q).length;
  const query = (performance.now() - start) / (rounds * queries.length);
  const real = pipelineQueries(40).map((q) => {
    const t = performance.now();
    hits += index.query(q).length;
    return performance.now() - t;
  });
  let before;
  if (process.env.BENCH_BEFORE !== '0') {
    start = performance.now();
    const mini = miniSearchIndex(sources);
    const miniBuild = performance.now() - start;
    const times = pipelineQueries(Number(process.env.BENCH_BEFORE_QUERIES ?? 5)).map((q) => {
      const t = performance.now();
      mini.search(q.slice(-4000));
      return performance.now() - t;
    });
    before = { build: miniBuild, realP50: percentile(times, 0.5) };
  }
  return { build, unchanged, query, realP50: percentile(real, 0.5), realP90: percentile(real, 0.9), chunks: index.stats.chunks, hits, before };
}

/**
 * What `waves` back-to-back `setTimeout(L)` waits take on this machine, with no pipeline at all
 * (best of REPEATS): Node fires a timer at or after its due millisecond, so each wave of the
 * latency model is late by up to ~1 ms before any orchestration runs. `wall / floor` is the
 * pipeline's own share; `wall / ideal` also contains the timer lateness.
 */
async function timerFloor(waves) {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < REPEATS; r++) {
    const start = performance.now();
    for (let wave = 0; wave < waves; wave++) await new Promise((resolve) => setTimeout(resolve, L));
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

console.log(`## pipeline (${modelLabel}, L = ${L} ms per model call, ${SECTIONS} sections, best of ${REPEATS}, after ${WARMUP} warm-up turns)`);
for (const tree of pipelineTrees) await warmUp(tree);
const treeColumn = pipelineTrees.length > 1;
console.log(`| ${treeColumn ? 'tree | ' : ''}characters | maxParallel | waves | ideal (ms) | timer floor (ms) | wall (ms) | wall / ideal | wall / floor | CPU ms per turn |`);
console.log(`|${treeColumn ? '---|' : ''}---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
for (const characters of [1, 4, 8]) {
  for (const maxParallel of [1, 4, 8]) {
    for (const tree of pipelineTrees) {
      const { wall, ideal, waves, cpu } = await pipelineRun(tree, characters, maxParallel);
      const floor = await timerFloor(waves);
      console.log(
        `| ${treeColumn ? `${tree.label} | ` : ''}${characters} | ${maxParallel} | ${waves} | ${ideal} | ${floor.toFixed(1)} | ${wall.toFixed(1)} | ${(wall / ideal).toFixed(3)} | ${(wall / floor).toFixed(3)} | ${cpu.toFixed(2)} |`,
      );
    }
  }
}
if (process.env.BENCH_RETRIEVAL === '0') process.exit(0);
console.log('\n## retrieval (10 sources, mixed zh/en Markdown; real query = 6 recent messages + the input, ~2 KB)');
console.log('| size | chunks | index build (ms) | unchanged update (ms) | short query avg (ms) | real query p50 (ms) | real query p90 (ms) | before: MiniSearch build (ms) | before: real query p50 (ms) |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [label, bytes] of [['1 MB', 1_000_000], ['10 MB', 10_000_000]]) {
  const r = retrievalRun(bytes);
  const before = r.before ? `${r.before.build.toFixed(0)} | ${r.before.realP50.toFixed(1)}` : '— | —';
  console.log(`| ${label} | ${r.chunks} | ${r.build.toFixed(0)} | ${r.unchanged.toFixed(2)} | ${r.query.toFixed(2)} | ${r.realP50.toFixed(2)} | ${r.realP90.toFixed(2)} | ${before} |`);
}
