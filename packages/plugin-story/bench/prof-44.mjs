import * as kernel from '@troupe/kernel';
import * as testing from '@troupe/kernel/testing';
import * as story from '../dist/index.js';
import { instantModel } from './instant-model.mjs';
const trees = new testing.MemoryTreeStore();
const sessionLog = new testing.MemorySessionLog();
const workspaces = new story.StoryWorkspaces(trees);
let ws = await workspaces.create('bench', { name: 'Bench', pipeline: { maxParallel: 4 } });
for (let i = 0; i < 4; i++) ws = await workspaces.addCharacter('bench', ws.revision, { id: `c${i}`, name: `C${i}`, persona: 'p', knowledge: 'k' });
for (let i = 0; i < 3; i++) ws = await workspaces.addSection('bench', ws.revision, { id: `s${i}`, title: `S${i}`, kind: 'prose' });
await workspaces.addSource('bench', ws.revision, { id: 'lore', title: 'Lore', text: '# Tavern\nThe tavern sells ale.\n# 公会\n莉娅欠公会一笔钱。' });
const harness = await kernel.createHarness({ trees, sessionLog, model: instantModel(), plugins: [story.storyPlugin()] });
const N = Number(process.env.N ?? 3000);
for (let t = 0; t < 300; t++) { await story.selectStoryWorkspace(sessionLog, `w${t}`, 'bench'); await harness.runTurn({ sessionId: `w${t}`, text: 'I enter the tavern' }); }
let sum = 0; const c0 = process.cpuUsage();
for (let t = 0; t < N; t++) { await story.selectStoryWorkspace(sessionLog, `s${t}`, 'bench'); const s = performance.now(); await harness.runTurn({ sessionId: `s${t}`, text: 'I enter the tavern' }); sum += performance.now() - s; }
const c = process.cpuUsage(c0);
console.log('wall/turn', (sum / N).toFixed(3), 'cpu/turn', ((c.user + c.system) / 1000 / N).toFixed(3));
await harness.close();
