// Assembly time for a 40-prompt preset with 500 history messages, and for a 300-prompt
// SillyTavern-style preset (comments, {{trim}}, setvar chains, {{if}} blocks, random/pick, in-chat
// injections, regex scripts, squashing) with 500 history messages. Runs against dist/: build first
// (`pnpm build`). Prints median and p99 in microseconds, and per prompt.
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

// 300 prompts in the shape real community presets have: read-me comments, a chain-of-thought
// selection through setvar/getvar and {{if}}, trimmed blocks, random picks, a few in-chat
// injections; plus two prompt-only regex scripts and squashing.
function makeLargePreset() {
  const prompts = [];
  for (let i = 0; i < 296; i++) {
    let content;
    switch (i % 8) {
      case 0:
        content = `{{// 作者说明 ${i}：这一段只给编辑预设的人看，不会发给模型。{{user}} 可以删掉它。}}规则 ${i}：{{char}} 保持角色。`;
        break;
      case 1:
        content = `{{setvar::cot${i % 5}::思维链 ${i}：先想 {{user}} 的意图，再写 {{char}} 的动作。}}`;
        break;
      case 2:
        content = `{{if {{getvar::mode}}}}\n  模式 ${i}：{{getvar::cot${i % 5}}}\n{{else}}\n  默认 ${i}\n{{/if}}`;
        break;
      case 3:
        content = `{{trim}}\n\n  Instruction ${i} for {{char}}: never speak for {{user}}.  \n{{/trim}}`;
        break;
      case 4:
        content = `风格 ${i}：{{random::简洁::细腻::克制}}，节奏 {{pick::快::慢}}。{{newline}}{{noop}}`;
        break;
      case 5:
        content = `{{setvar::mode::on}}{{addvar::count::1}}状态 ${i}：第 {{getvar::count}} 条`;
        break;
      case 6:
        content = `Legacy <USER>/<BOT> ${i}{{trim}}\n\n末尾`;
        break;
      default:
        content = `Plain instruction ${i}: keep the scene moving, describe the weather at the lighthouse.`;
    }
    const injection = i % 60 === 7 ? { injectionDepth: (i % 5) + 1, role: 'user' } : {};
    prompts.push({ identifier: `p${i}`, name: i === 9 ? 'roleplay' : `Prompt ${i}`, role: 'system', content, ...injection });
  }
  prompts.splice(10, 0, { identifier: 'dialogueExamples', name: 'Examples', role: 'system', content: '{{mesExamples}}' });
  prompts.splice(11, 0, { identifier: 'charPersonality', name: 'Personality', role: 'system', content: '{{personality}}' });
  prompts.splice(200, 0, { identifier: 'chatHistory', name: 'Chat history', role: 'system', content: '', marker: 'chatHistory' });
  prompts.splice(201, 0, { identifier: 'jailbreak', name: 'Post-history', role: 'system', content: '[{{char}} stays in character.]' });
  return {
    prompts,
    settings: { squashSystemMessages: true, personalityFormat: "[{{char}}'s personality: {{personality}}]", newChatPrompt: '[Start a new Chat]', newExampleChatPrompt: '[Example Chat]' },
    regexScripts: [
      { scriptName: 'hide tucao', findRegex: '/<tucao>[\\s\\S]*?<\\/tucao>/g', replaceString: '', placement: [2], promptOnly: true, minDepth: 2 },
      { scriptName: 'names', findRegex: '/阿明/g', replaceString: '{{user}}', placement: [1], promptOnly: true },
    ],
  };
}

function measure(label, input, prompts = 40) {
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
  console.log(`${label.padEnd(34)} median ${median.toFixed(1).padStart(7)} µs   p99 ${p99.toFixed(1).padStart(7)} µs   per prompt ${(median / prompts).toFixed(2)} µs`);
  return { label, median, p99 };
}

console.log(`@troupe/plugin-actor-assembler — assemble(): 40-prompt preset, 500 history messages, ${SAMPLES} samples (Node ${process.version})`);
measure('plain turn', base);
measure('with DIO compiled prompt', { ...base, compiledPrompt: '你是莉娅，灯塔看守人。从现在起都用短句回答，少用比喻。' });
measure('with DIO + story draft', { ...base, compiledPrompt: '你是莉娅。只用短句。', storyDraft: { text: '## 莉娅\n「关窗。」' } });

const large = makeLargePreset();
if (large.prompts.length !== 300 || !validatePreset(large).ok) throw new Error('bench preset is not a valid 300-prompt preset');
const largeHistory = history.map((message, i) => (i % 10 === 1 ? { ...message, content: `${message.content}<tucao>吐槽 ${i}</tucao>` } : message));
const largeBase = { ...base, preset: large, history: largeHistory, fields: { ...base.fields, mesExamples: '<START>\n{{user}}: 你是谁？\n{{char}}: 看灯塔的。' }, seed: 'bench', chatId: 'bench' };
measure('300 prompts, SillyTavern-style', largeBase, 300);
measure('300 prompts + DIO compiled prompt', { ...largeBase, compiledPrompt: '你是莉娅，灯塔看守人。' }, 300);

// The ratio the issue asks for, measured interleaved (one 40-prompt call, one 300-prompt call, …)
// so that load on a shared machine hits both sides alike.
{
  const small = [];
  const big = [];
  for (let i = 0; i < SAMPLES; i++) {
    let start = performance.now();
    assemble(base);
    small.push((performance.now() - start) * 1000);
    start = performance.now();
    assemble(largeBase);
    big.push((performance.now() - start) * 1000);
  }
  small.sort((a, b) => a - b);
  big.sort((a, b) => a - b);
  const perSmall = small[Math.floor(SAMPLES / 2)] / 40;
  const perBig = big[Math.floor(SAMPLES / 2)] / 300;
  console.log(`interleaved: 40-prompt ${perSmall.toFixed(2)} µs/prompt, 300-prompt ${perBig.toFixed(2)} µs/prompt → ${(perBig / perSmall).toFixed(2)}× per prompt`);
}
