// Token counting + budgeting per turn for 500 history messages: the kernel's per-turn budget
// (estimate tokenizer, and gpt-tokenizer's o200k_base as the provider uses for GPT models) and
// fitHistoryToBudget with a 40-prompt preset. Runs against dist/: build first (`pnpm build`).
// "cold" = the first turn in a process (every message tokenized); "warm" = a later turn (the
// history's counts are cached, the two newest messages are new).
import { performance } from 'node:perf_hooks';
import { contextKeys, createHarness, definePlugin } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { assemble, fitHistoryToBudget } from '../dist/index.js';

const COLD_SAMPLES = Number(process.env.BENCH_COLD_SAMPLES ?? 200);
const WARM_SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);

const prompts = [];
for (let i = 0; i < 38; i++) {
  prompts.push({
    identifier: `p${i}`,
    name: i === 5 ? 'roleplay' : `Prompt ${i}`,
    role: 'system',
    content: i % 7 === 0 ? `规则 ${i}：{{char}} 对 {{user}} 说话时保持角色。` : `Instruction ${i} for {{char}}: stay in character, keep the scene moving, never speak for {{user}}.`,
  });
}
prompts.splice(30, 0, { identifier: 'chatHistory', name: 'Chat history', role: 'system', content: '', marker: 'chatHistory' });
prompts.splice(31, 0, { identifier: 'userInput', name: 'Input', role: 'user', content: '', marker: 'userInput' });
const preset = { prompts };

const line = (i, salt = '') =>
  i % 2 === 0
    ? { role: 'user', content: `第 ${i} 句${salt}：今晚的风暴会多大？The harbour lights are out again, Lia.` }
    : { role: 'assistant', content: `「海比人诚实。它要翻脸之前，总会先起风。」(${i}${salt}) She pulls her coat tighter and watches the water.` };
const history = Array.from({ length: 500 }, (_, i) => line(i));
const assembleWith = (placed) => assemble({ preset, history: placed, input: '灯塔还亮着吗？', char: '莉娅', user: '阿明' });

const o200k = { id: 'o200k_base', exact: true, count: (text) => countTokens(text, { disallowedSpecial: new Set() }) };

/** The kernel's budget for one turn, as a plugin receives it, from a fresh harness (fresh caches). */
async function freshBudget(tokenizer) {
  let budget;
  const spy = definePlugin({
    name: 'spy',
    version: '1.0.0',
    kernel: '^0.1.0',
    setup: (ctx) => ctx.hooks.preActor((_input, turn) => {
      budget = turn.get(contextKeys.tokenBudget);
    }),
  });
  const scripted = new ScriptedChatModel({ streamChunkSize: false });
  const model = tokenizer ? { id: 'bench', tokenizer, generate: (request) => scripted.generate(request) } : scripted;
  const harness = await createHarness({ model, sessionLog: new MemorySessionLog(), plugins: [spy] });
  await harness.runTurn({ sessionId: 'bench', text: 'x' });
  await harness.close();
  return budget;
}

function stats(times) {
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}

function report(label, { median, p99 }, extra = '') {
  console.log(`${label.padEnd(50)} median ${median.toFixed(0).padStart(7)} µs   p99 ${p99.toFixed(0).padStart(7)} µs${extra}`);
}

async function run(name, tokenizer) {
  // Cold: a fresh counter each sample.
  const countCold = [];
  const fitCold = [];
  for (let i = 0; i < COLD_SAMPLES; i++) {
    const budget = await freshBudget(tokenizer);
    let start = performance.now();
    budget.countMessages(history);
    countCold.push((performance.now() - start) * 1000);
    const other = await freshBudget(tokenizer);
    start = performance.now();
    fitHistoryToBudget(history, assembleWith, (result) => result.messages, other);
    fitCold.push((performance.now() - start) * 1000);
  }
  // Warm: one counter; each turn brings two messages it has not seen.
  const budget = await freshBudget(tokenizer);
  fitHistoryToBudget(history, assembleWith, (result) => result.messages, budget);
  const countWarm = [];
  const fitWarm = [];
  let kept = 0;
  for (let i = 0; i < WARM_SAMPLES; i++) {
    const turn = [...history.slice(2), line(500, `#${i}`), line(501, `#${i}`)];
    let start = performance.now();
    budget.countMessages(turn);
    countWarm.push((performance.now() - start) * 1000);
    const again = [...history.slice(2), line(500, `@${i}`), line(501, `@${i}`)];
    start = performance.now();
    kept = fitHistoryToBudget(again, assembleWith, (result) => result.messages, budget).kept;
    fitWarm.push((performance.now() - start) * 1000);
  }
  report(`${name}: count 500 messages, cold`, stats(countCold));
  report(`${name}: count 500 messages, warm`, stats(countWarm));
  report(`${name}: budget (count + fit + assemble), cold`, stats(fitCold));
  report(`${name}: budget (count + fit + assemble), warm`, stats(fitWarm), `   (${kept} of 500 kept in ${budget.promptTokens} tokens)`);
}

console.log(`@troupe/plugin-actor-assembler — context budget, 40-prompt preset, 500 history messages (Node ${process.version}; cold ${COLD_SAMPLES}, warm ${WARM_SAMPLES} samples)`);
const plain = [];
for (let i = 0; i < WARM_SAMPLES; i++) {
  const start = performance.now();
  assembleWith(history);
  plain.push((performance.now() - start) * 1000);
}
report('reference: assemble() alone, no budget', stats(plain));
await run('estimate', undefined);
await run('o200k_base', o200k);
