// Assembly time for a 40-prompt preset with 500 history messages. Runs against dist/: build first
// (`pnpm build`). Prints median and p99 in microseconds for plain, DIO and DIO + story-draft turns.
import { performance } from 'node:perf_hooks';
import { assemble, validatePreset } from '../dist/index.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5000);
const WARMUP = 1000;

function makePreset() {
  const prompts = [];
  for (let i = 0; i < 38; i++) {
    const content =
      i === 5
        ? '{{description}}\n{{personality}}'
        : i % 7 === 0
          ? `规则 ${i}：{{char}} 对 {{user}} 说话时保持角色。{{setvar::rule${i}::on}}{{getvar::rule${i}}}`
          : `Instruction ${i} for {{char}}: stay in character, keep the scene moving, never speak for {{user}}.`;
    prompts.push({ identifier: `p${i}`, name: i === 5 ? 'roleplay' : `Prompt ${i}`, role: 'system', content });
  }
  prompts.splice(30, 0, { identifier: 'chatHistory', name: 'Chat history', role: 'system', content: '', marker: 'chatHistory' });
  prompts.splice(31, 0, { identifier: 'userInput', name: 'Input', role: 'user', content: '', marker: 'userInput' });
  return { prompts };
}

const preset = makePreset();
if (preset.prompts.length !== 40 || !validatePreset(preset).ok) throw new Error('bench preset is not a valid 40-prompt preset');
const history = Array.from({ length: 500 }, (_, i) => ({
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: i % 2 === 0 ? `第 ${i} 句：今晚的风暴会多大？` : `「海比人诚实。它要翻脸之前，总会先起风。」(${i})`,
}));
const base = { preset, history, input: '灯塔还亮着吗？', char: '莉娅', user: '阿明', fields: { description: '灯塔看守人', personality: '冷静' } };

function measure(label, input) {
  for (let i = 0; i < WARMUP; i++) assemble(input);
  const times = new Float64Array(SAMPLES);
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    const result = assemble(input);
    times[i] = (performance.now() - start) * 1000;
    if (result.messages.length < 500) throw new Error('history lost');
  }
  times.sort();
  const median = times[Math.floor(SAMPLES / 2)];
  const p99 = times[Math.min(SAMPLES - 1, Math.floor(SAMPLES * 0.99))];
  console.log(`${label.padEnd(34)} median ${median.toFixed(1).padStart(7)} µs   p99 ${p99.toFixed(1).padStart(7)} µs`);
  return { label, median, p99 };
}

console.log(`@troupe/plugin-actor-assembler — assemble(): 40-prompt preset, 500 history messages, ${SAMPLES} samples (Node ${process.version})`);
measure('plain turn', base);
measure('with DIO compiled prompt', { ...base, compiledPrompt: '你是莉娅，灯塔看守人。从现在起都用短句回答，少用比喻。' });
measure('with DIO + story draft', { ...base, compiledPrompt: '你是莉娅。只用短句。', storyDraft: { text: '## 莉娅\n「关窗。」' } });
