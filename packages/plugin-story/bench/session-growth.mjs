// One long story session at zero model latency (in-memory stores): per-turn cost, bytes the turn
// appends to the session log and heap, at turn 10, 100, 1 000 and 5 000. Every turn settles
// public events and observations, so history.md and knowledge.md grow every turn, as in play.
// Run after `tsc -b`; `node --expose-gc` for the heap column. BENCH_SESSION_TURNS=2000 for a
// shorter session. CPU ms (the process's user + system time per turn) is the steadier column on
// a loaded machine: wall time there includes waiting for a core.
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, MemoryTreeStore } from '@troupe/kernel/testing';
import { selectStoryWorkspace, StoryWorkspaces, storyPlugin } from '../dist/index.js';
import { instantModel } from './instant-model.mjs';

const TURNS = Number(process.env.BENCH_SESSION_TURNS ?? 5000);
const MARKS = [...new Set([10, 100, 1000, 5000].filter((mark) => mark <= TURNS).concat(TURNS))];
const WINDOW = 10; // turns measured around each mark (median)

let turnNo = 0;
const model = instantModel({
  continuity: () => ({
    publicEvents: [`Turn ${turnNo}: the party crossed the ${turnNo % 7 === 0 ? 'river' : 'road'} and 莉娅在第${turnNo}回合付了钱`],
    observations: [{ characterId: 'c0', facts: [`c0 saw turn ${turnNo}`] }],
    proposals: [],
  }),
  actor: () => `Actor reply for turn ${turnNo}: the tavern is warm and 老板点了点头。`,
});

// Counts the bytes appended (as JSON) without reading the log back: a full read of 100 000
// events would itself put gigabytes of garbage on the heap and into the next turn's time.
class CountingLog extends MemorySessionLog {
  appendedBytes = 0;
  events = 0;
  async append(sessionId, events) {
    const stored = await super.append(sessionId, events);
    for (const event of stored) this.appendedBytes += JSON.stringify(event).length;
    this.events += stored.length;
    return stored;
  }
}

const trees = new MemoryTreeStore();
const sessionLog = new CountingLog();
const workspaces = new StoryWorkspaces(trees);
let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel: 4 } });
for (let i = 0; i < 4; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
for (let i = 0; i < 3; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
const harness = await createHarness({ trees, sessionLog, model, plugins: [storyPlugin()] });
await selectStoryWorkspace(sessionLog, 'long', 'bench');

const rows = [];
let times = [];
let cpus = [];
let bytes = [];
for (turnNo = 1; turnNo <= TURNS; turnNo++) {
  const before = sessionLog.appendedBytes;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await harness.runTurn({ sessionId: 'long', text: `I walk on (turn ${turnNo}), asking about the river` });
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const mark = MARKS.find((m) => turnNo > m - WINDOW && turnNo <= m);
  if (mark === undefined) continue;
  bytes.push(sessionLog.appendedBytes - before);
  times.push(ms);
  cpus.push((cpu.user + cpu.system) / 1000);
  if (turnNo === mark) {
    globalThis.gc?.();
    const history = (await trees.read('bench')).files['history.md'] ?? '';
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    rows.push({ turn: mark, ms: median(times), cpu: median(cpus), bytes: median(bytes), heap: process.memoryUsage().heapUsed / 1e6, history: history.length / 1e3, events: sessionLog.events, stored: sessionLog.appendedBytes / 1e6 });
    times = [];
    cpus = [];
    bytes = [];
  }
}
await harness.close();
console.log(`## one story session of ${TURNS} turns (in-memory, zero latency, 4 characters, 3 sections; median of ${WINDOW} turns at each mark)`);
console.log('| turn | ms per turn | CPU ms per turn | bytes appended per turn | history.md (KB) | events in log | log as JSON (MB) | heap used (MB)' + (globalThis.gc ? '' : ', no --expose-gc') + ' |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(`| ${row.turn} | ${row.ms.toFixed(2)} | ${row.cpu.toFixed(2)} | ${row.bytes} | ${row.history.toFixed(0)} | ${row.events} | ${row.stored.toFixed(1)} | ${row.heap.toFixed(1)} |`);
const first = rows[0];
const last = rows.at(-1);
if (first && last) console.log(`\nturn ${last.turn} / turn ${first.turn}: cost ${(last.ms / first.ms).toFixed(2)}× (CPU ${(last.cpu / first.cpu).toFixed(2)}×), bytes appended ${(last.bytes / first.bytes).toFixed(2)}×`);
