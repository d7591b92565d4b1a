// Benchmark: one world-info activation per turn over a 400-entry book and a 50-message chat,
// median and p99 per turn. Run: pnpm bench (builds first). Prints numbers; never asserts on them.
import { activateWorldInfo, importWorldInfo } from '../dist/index.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 500);
const WORDS = ['harbour', 'lighthouse', 'storm', 'tide', 'lantern', 'gull', 'anchor', 'reef', 'mist', 'keeper', '灯塔', '风暴', '潮水', '海鸥'];

// A deterministic generator, so every run measures the same book and chat.
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = (list) => list[Math.floor(random() * list.length)];

// 400 entries: mostly plain keys, some regex, some selective, a few constants, groups and timed effects.
const entries = {};
for (let uid = 0; uid < 400; uid++) {
  const name = `${pick(WORDS)}${uid}`;
  entries[uid] = {
    uid,
    key: uid % 25 === 0 ? [`/${name}|${pick(WORDS)}-${uid}/i`] : [name, `${pick(WORDS)} ${uid}`],
    keysecondary: uid % 7 === 0 ? [pick(WORDS)] : [],
    selectiveLogic: uid % 4,
    constant: uid % 50 === 0,
    content: `${name}: ${'The keeper trims the lantern before the storm. '.repeat(3 + (uid % 5))}`,
    order: uid % 300,
    position: uid % 7,
    group: uid % 30 === 0 ? 'weather' : '',
    probability: uid % 11 === 0 ? 60 : 100,
    sticky: uid % 40 === 0 ? 3 : 0,
    cooldown: uid % 45 === 0 ? 2 : 0,
  };
}
const { book } = importWorldInfo({ entries }, { name: 'bench' });

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

function chatAt(turn) {
  const messages = [];
  for (let index = 0; index < 50; index++) {
    const words = Array.from({ length: 30 }, () => (random() < 0.05 ? `${pick(WORDS)}${Math.floor(random() * 400)}` : pick(['the', 'a', 'keeper', 'said', 'and', 'then', 'we', 'walked'])));
    messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: `${words.join(' ')} (${turn})` });
  }
  return messages;
}

function measure(label, settings) {
  let state;
  const times = [];
  // CPU time of this process: on a shared machine wall time also counts other processes' turns.
  const cpuTimes = [];
  let activated = 0;
  for (let turn = 0; turn < TURNS; turn++) {
    const messages = chatAt(turn);
    const input = `What about ${pick(WORDS)}${Math.floor(random() * 400)} and the ${pick(WORDS)}?`;
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const result = activateWorldInfo({ books: [book], messages, input, state, seed: turn, settings });
    const cpu = process.cpuUsage(cpuStart);
    times.push(performance.now() - started);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    state = result.state;
    activated += result.entries.length;
  }
  const warmUp = Math.min(50, Math.floor(TURNS / 10));
  const wall = times.slice(warmUp);
  const cpu = cpuTimes.slice(warmUp);
  console.log(
    `${label}: CPU median ${percentile(cpu, 50).toFixed(2)} ms, p99 ${percentile(cpu, 99).toFixed(2)} ms; wall median ${percentile(wall, 50).toFixed(2)} ms, p99 ${percentile(wall, 99).toFixed(2)} ms per turn (${TURNS} turns, ${(activated / TURNS).toFixed(1)} entries activated per turn)`,
  );
}

console.log('world-info activation, 400-entry book, 50 messages');
measure('ST defaults (depth 2, budget 25 % of 8k, recursion on)', {});
measure('whole chat scanned (depth 50)', { scanDepth: 50 });
measure('depth 50, 128k context budget', { scanDepth: 50, contextSize: 128_000 });
