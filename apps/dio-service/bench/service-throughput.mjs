// Benchmark: schedule throughput of the reference service (loopback HTTP, durable fs storage,
// offline compiler) and active-prompt lookup latency against it. Prints numbers only.
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@troupe/kernel';
import { MemoryTreeStore } from '@troupe/kernel/testing';
import { DioClient } from '@troupe/plugin-dio';
import { startDioService } from '../dist/index.js';

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 1000);
async function run(store) {
  const dataDir = await mkdtemp(join(tmpdir(), 'dio-bench-'));
  const token = 'bench-token-123456';
  const running = await startDioService(
    { port: 0, host: '127.0.0.1', dataDir, tokens: new Map([[token, 'alice']]), adminToken: 'bench-admin-123456', model: undefined },
    silentLogger,
    store === 'memory' ? { trees: new MemoryTreeStore() } : {},
  );
  await fetch(`${running.url}/v1/prompts/lia`, {
    method: 'PUT',
    headers: { authorization: 'Bearer bench-admin-123456', 'content-type': 'application/json' },
    body: JSON.stringify({ content: '你是莉娅，一位住在海边灯塔里的旅店老板。', characterName: '莉娅' }),
  });
  const client = new DioClient(running.url, 10_000);
  const auth = `Bearer ${token}`;
  const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

  // Schedules spread over CONCURRENCY conversations (one requirement set each), CONCURRENCY in flight.
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (next < SCHEDULES) {
        const index = next++;
        await client.schedule({
          actorTurnRequestId: `turn-${index}`,
          userId: 'alice',
          rpConversationId: `conv-${worker}`,
          targetPromptId: 'lia',
          instruction: `要求 ${index}：回答用短句。`,
          language: 'zh',
          userAuthorization: auth,
        });
      }
    }),
  );
  const acceptedMs = performance.now() - started;
  await running.service.idle();
  const compiledMs = performance.now() - started;

  const lookups = [];
  for (let index = 0; index < LOOKUPS; index++) {
    const at = performance.now();
    await client.activePrompt({ userId: 'alice', rpConversationId: `conv-${index % CONCURRENCY}`, targetPromptId: 'lia', userAuthorization: auth });
    lookups.push(performance.now() - at);
  }
  await running.close();
  await rm(dataDir, { recursive: true, force: true });

  console.log(`store: ${store === 'memory' ? 'MemoryTreeStore (service overhead only)' : `@troupe/storage-fs on ${tmpdir()} (durable, fsync)`}`);
  console.log(`schedule: ${SCHEDULES} accepted in ${acceptedMs.toFixed(0)} ms = ${((SCHEDULES / acceptedMs) * 1000).toFixed(0)} req/s (concurrency ${CONCURRENCY})`);
  console.log(`schedule → all tasks succeeded (versions written): ${compiledMs.toFixed(0)} ms = ${((SCHEDULES / compiledMs) * 1000).toFixed(0)} tasks/s`);
  console.log(`active-prompt lookup against the service x${LOOKUPS}: p50 ${percentile(lookups, 50).toFixed(3)} ms, p99 ${percentile(lookups, 99).toFixed(3)} ms`);
}

console.log(`## @troupe/dio-service (Node ${process.version}, loopback, offline compiler)`);
await run('fs');
await run('memory');
