// Story-pipeline overhead per turn at zero model latency: everything a turn costs besides the
// model (retrieval, stage bookkeeping, events, the in-memory store, the kernel). Run after `tsc -b`.
// `BENCH_BEFORE=<checkout>` (another clone or worktree of this repository, built) measures that
// tree too, alternating rounds in the same process, for before/after columns from one run.
// Besides wall time per turn it reports the process CPU time per turn (`process.cpuUsage`), which
// a loaded machine disturbs much less than wall time.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const TURNS = Number(process.env.BENCH_TURNS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.env.BENCH_BEFORE ? 3 : 1));
const here = path.dirname(fileURLToPath(import.meta.url));

/** The packages a checkout's built `dist` provides (this repository's by default). */
async function treeAt(root) {
  const at = (file) => pathToFileURL(path.join(root, file)).href;
  return {
    kernel: await import(at('packages/kernel/dist/index.js')),
    testing: await import(at('packages/kernel/dist/testing/index.js')),
    story: await import(at('packages/plugin-story/dist/index.js')),
    model: await import(at('packages/plugin-story/bench/instant-model.mjs')),
  };
}

async function overhead(tree, characters, maxParallel) {
  const { kernel, testing, story, model } = tree;
  const trees = new testing.MemoryTreeStore();
  const sessionLog = new testing.MemorySessionLog();
  const workspaces = new story.StoryWorkspaces(trees);
  let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < 3; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
  const harness = await kernel.createHarness({ trees, sessionLog, model: model.instantModel(), plugins: [story.storyPlugin()] });
  const times = [];
  const cpu = [];
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    // A session per turn, so the measured cost does not include a growing history.
    await story.selectStoryWorkspace(sessionLog, `s${turn}`, 'bench');
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await harness.runTurn({ sessionId: `s${turn}`, text: 'I enter the tavern' });
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    if (turn >= WARMUP) {
      times.push(wall);
      cpu.push((used.user + used.system) / 1000);
    }
  }
  await harness.close();
  return { times, cpu };
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const configs = [
  [1, 1],
  [4, 4],
  [8, 4],
];
const trees = [{ label: 'this tree', tree: await treeAt(path.join(here, '../../..')) }];
if (process.env.BENCH_BEFORE) trees.unshift({ label: `before (${process.env.BENCH_BEFORE})`, tree: await treeAt(path.resolve(process.env.BENCH_BEFORE)) });

console.log(`## story overhead at zero model latency (${TURNS} turns after ${WARMUP} warm-up, 3 sections${ROUNDS > 1 ? `, ${ROUNDS} alternating rounds` : ''})`);
console.log('| tree | characters | maxParallel | ms per turn (median) | p90 | CPU ms per turn (median) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [characters, maxParallel] of configs) {
  const results = trees.map(() => ({ times: [], cpu: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { tree }] of trees.entries()) {
      const { times, cpu } = await overhead(tree, characters, maxParallel);
      results[index].times.push(...times);
      results[index].cpu.push(...cpu);
    }
  }
  for (const [index, { label }] of trees.entries()) {
    const { times, cpu } = results[index];
    console.log(`| ${label} | ${characters} | ${maxParallel} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.9).toFixed(2)} | ${percentile(cpu, 0.5).toFixed(2)} |`);
  }
}
