// Benchmark: the latency the DIO lookup adds to a turn (loopback HTTP), p50/p99.
// Run: pnpm bench (builds first). Prints numbers; never asserts on them.
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createHarness } from '@troupe/kernel';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { DioClient, dioPlugin } from '../dist/index.js';

const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 2000);
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const compiledPrompt = `你是莉娅，一位住在海边灯塔里的旅店老板。${'她说话温和。'.repeat(300)}\n\n## 长期要求 / Lasting requirements\n- 从现在起莉娅都用短句回答，少用比喻。`;
const body = JSON.stringify({
  versionId: 'v1',
  sourceVersionId: 's1',
  changeset: { added: [], removed: [] },
  compiledPrompt,
  compiledPromptSha256: createHash('sha256').update(compiledPrompt, 'utf8').digest('hex'),
});
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(body);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value) => `${value.toFixed(3)} ms`;

// 1. The client call alone: HTTP round trip + zod validation + SHA-256 over ~2 KB.
const client = new DioClient(baseUrl, 1500);
for (let index = 0; index < 100; index++) await client.activePrompt({ userId: 'u1', rpConversationId: 'c1', targetPromptId: 'lia' });
const lookups = [];
for (let index = 0; index < LOOKUPS; index++) {
  const started = performance.now();
  await client.activePrompt({ userId: 'u1', rpConversationId: 'c1', targetPromptId: 'lia' });
  lookups.push(performance.now() - started);
}

// 2. Whole turns with and without the plugin: the difference is what DIO adds to the critical path.
async function turnTimes(plugins) {
  const harness = await createHarness({ plugins, model: new ScriptedChatModel({ streamChunkSize: false }), sessionLog: new MemorySessionLog() });
  const times = [];
  for (let index = 0; index < TURNS + 50; index++) {
    const started = performance.now();
    await harness.runTurn({ sessionId: `s${index % 20}`, text: 'hello', userId: 'u1' });
    if (index >= 50) times.push(performance.now() - started);
  }
  await harness.close();
  return times;
}
const without = await turnTimes([]);
const withDio = await turnTimes([dioPlugin({ baseUrl, targetPromptId: 'lia' })]);
server.close();

console.log(`## @troupe/plugin-dio (Node ${process.version}, loopback, ${compiledPrompt.length}-character compiled prompt)`);
console.log(`activePrompt lookup x${LOOKUPS}: p50 ${ms(percentile(lookups, 50))}, p99 ${ms(percentile(lookups, 99))}`);
console.log(`turn without DIO x${TURNS}: p50 ${ms(percentile(without, 50))}, p99 ${ms(percentile(without, 99))}`);
console.log(`turn with DIO lookup x${TURNS}: p50 ${ms(percentile(withDio, 50))}, p99 ${ms(percentile(withDio, 99))}`);
console.log(`added by DIO on the critical path: p50 ${ms(percentile(withDio, 50) - percentile(without, 50))}, p99 ${ms(percentile(withDio, 99) - percentile(without, 99))}`);
