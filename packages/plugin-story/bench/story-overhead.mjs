// Story-pipeline overhead per turn at zero model latency: everything a turn costs besides the
// model (retrieval, stage bookkeeping, events, the in-memory store, the kernel). Run after `tsc -b`.
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin } from '../dist/index.js';
import { instantModel } from './instant-model.mjs';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const TURNS = Number(process.env.BENCH_TURNS ?? 60);

async function overhead(characters, maxParallel) {
  const trees = new MemoryTreeStore();
  const sessionLog = new MemorySessionLog();
  const workspaces = new StoryWorkspaces(trees);
  let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel } });
  for (let i = 0; i < characters; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
  for (let i = 0; i < 3; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
  await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
  const harness = await createHarness({ trees, sessionLog, model: instantModel(), plugins: [storyPlugin()] });
  const times = [];
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    // A session per turn, so the measured cost does not include a growing history.
    await selectStoryWorkspace(sessionLog, `s${turn}`, 'bench');
    const start = performance.now();
    await harness.runTurn({ sessionId: `s${turn}`, text: 'I enter the tavern' });
    if (turn >= WARMUP) times.push(performance.now() - start);
  }
  await harness.close();
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
}

console.log(`## story overhead at zero model latency (${TURNS} turns after ${WARMUP} warm-up, 3 sections)`);
console.log('| characters | maxParallel | ms per turn (median) | p90 |');
console.log('|---:|---:|---:|---:|');
for (const [characters, maxParallel] of [
  [1, 1],
  [4, 4],
  [8, 4],
]) {
  const { median, p90 } = await overhead(characters, maxParallel);
  console.log(`| ${characters} | ${maxParallel} | ${median.toFixed(2)} | ${p90.toFixed(2)} |`);
}
