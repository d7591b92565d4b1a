import * as kernel from '@troupe/kernel';
import * as testing from '@troupe/kernel/testing';
import * as story from '../dist/index.js';
import { instantModel } from './instant-model.mjs';
const L = Number(process.env.L ?? 20);
const inst = instantModel();
let log = [];
const model = { id: 'x', async generate(req) {
  const stage = req.meta.stage; const t0 = performance.now(); req.signal?.aborted;
  await new Promise((r) => setTimeout(r, L));
  const t1 = performance.now(); log.push({ stage, t0, t1 });
  return inst.generate(req);
} };
const C = Number(process.env.C ?? 4), P = Number(process.env.P ?? 4);
const trees = new testing.MemoryTreeStore(); const sessionLog = new testing.MemorySessionLog();
const workspaces = new story.StoryWorkspaces(trees);
let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel: P } });
for (let i = 0; i < C; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
for (let i = 0; i < 3; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
const warm = await kernel.createHarness({ trees, sessionLog, model: inst, plugins: [story.storyPlugin()] });
await story.selectStoryWorkspace(sessionLog, 'w', 'bench');
for (let t = 0; t < 100; t++) await warm.runTurn({ sessionId: 'w', text: 'I enter the tavern', turnId: `w${t}` });
await warm.close();
const harness = await kernel.createHarness({ trees, sessionLog, model, plugins: [story.storyPlugin()] });
await story.selectStoryWorkspace(sessionLog, 's1', 'bench');
const rows = [];
for (let r = 0; r < Number(process.env.R ?? 15); r++) {
  log = [];
  const s = performance.now();
  await harness.runTurn({ sessionId: 's1', text: 'I enter the tavern', turnId: `t${r}` });
  const e = performance.now();
  // group by stage order
  const parts = []; let prevEnd = s;
  const byStage = [];
  for (const x of log) { const last = byStage.at(-1); if (last && last.stage === x.stage) { last.t0 = Math.min(last.t0, x.t0); last.t1 = Math.max(last.t1, x.t1); last.n++; } else byStage.push({ ...x, n: 1 }); }
  for (const b of byStage) { parts.push([`→${b.stage.replace('story/', '')}${b.n > 1 ? 'x' + b.n : ''}`, b.t0 - prevEnd, b.t1 - b.t0 - L]); prevEnd = b.t1; }
  parts.push(['→end', e - prevEnd, 0]);
  rows.push({ total: e - s, parts });
}
rows.sort((a, b) => a.total - b.total);
for (const row of rows.slice(0, 5)) console.log(row.total.toFixed(2), row.parts.map(([n, g, late]) => `${n} gap ${g.toFixed(2)} late ${late.toFixed(2)}`).join(' | '));
await harness.close();
